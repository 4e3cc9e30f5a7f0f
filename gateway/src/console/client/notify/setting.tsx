/**
 * Whether the member wants desktop notifications and the sound: their own choice, kept in this browser's
 * localStorage under their member id, so each member of a shared computer chooses for themselves. Off until chosen.
 */
const keyOf = (me: string) => `leadchat.notify.${me}`;

export function notifying(me: string): boolean {
  try {
    return localStorage.getItem(keyOf(me)) === 'on';
  } catch {
    return false;
  }
}

export function setNotifying(me: string, on: boolean): void {
  try {
    if (on) localStorage.setItem(keyOf(me), 'on');
    else localStorage.removeItem(keyOf(me));
  } catch {
    // Storage refused: the choice lasts as long as the page.
  }
}
