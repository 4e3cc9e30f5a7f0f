import { useState } from 'preact/hooks';
import { notifying, setNotifying } from './setting.js';
import { allowSound } from './sound.js';

type Permission = NotificationPermission | 'unsupported';
const permissionNow = (): Permission => ('Notification' in window ? Notification.permission : 'unsupported');

/**
 * The member's switch for notifications (a desktop notification and a chime). The browser's permission is asked
 * when they turn it on, never before: browsers ignore a request not made on a click.
 */
export function NotifySwitch(props: { me: string }) {
  const [on, setOn] = useState(() => notifying(props.me));
  const [permission, setPermission] = useState(permissionNow);
  const ask = async () => setPermission(await Notification.requestPermission());
  const change = async (e: Event) => {
    const want = (e.currentTarget as HTMLInputElement).checked;
    setNotifying(props.me, want);
    setOn(want);
    if (!want) return;
    allowSound();
    if (permission === 'default') await ask();
  };
  return (
    <div class="notify-switch">
      <label class="choice">
        <input type="checkbox" checked={on} onChange={(e) => void change(e)} aria-describedby="notify-hint" />
        Notify me when a contact waits for a reply, in a conversation of mine or one nobody has, and when one is
        assigned to me
      </label>
      <p id="notify-hint" class="hint" role="status">
        {!on
          ? 'A desktop notification and a sound, in this browser.'
          : permission === 'denied'
            ? 'This browser blocks notifications from the console: you hear the sound only. Allow them in the site’s settings.'
            : permission === 'unsupported'
              ? 'This browser shows no desktop notifications: you hear the sound only.'
              : permission === 'default'
                ? 'The browser has not allowed notifications yet: you hear the sound only.'
                : 'On, in this browser: a desktop notification and a sound.'}
      </p>
      {on && permission === 'default' && (
        <button type="button" class="secondary" onClick={() => void ask()}>
          Allow desktop notifications
        </button>
      )}
    </div>
  );
}
