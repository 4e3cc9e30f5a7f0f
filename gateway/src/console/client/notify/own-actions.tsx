/**
 * What the member did themselves, so that the stream's news of it is not told back to them: assigning a
 * conversation, or replying (which takes one nobody has). Kept in localStorage for a few seconds, so the member's
 * other tabs know it too; the mark is made before the request, as its event may come before its answer.
 */
const KEPT_MS = 10_000;
const keyOf = (me: string) => `leadchat.acting.${me}`;

function read(me: string): Record<string, number> {
  try {
    return JSON.parse(localStorage.getItem(keyOf(me)) ?? '{}') as Record<string, number>;
  } catch {
    return {};
  }
}

/** The member is about to change the conversation themselves. */
export function acting(me: string, conversationId: string): void {
  const now = Date.now();
  const kept = Object.fromEntries(Object.entries(read(me)).filter(([, at]) => now - at < KEPT_MS));
  try {
    localStorage.setItem(keyOf(me), JSON.stringify({ ...kept, [conversationId]: now }));
  } catch {
    // Storage refused (private mode, full): the member may be told of their own change, nothing worse.
  }
}

/** Whether the member changed the conversation themselves in the last few seconds. */
export const actedOn = (me: string, conversationId: string): boolean =>
  Date.now() - (read(me)[conversationId] ?? 0) < KEPT_MS;
