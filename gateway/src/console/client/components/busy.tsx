import { useEffect, useState } from 'preact/hooks';
import { onBusy } from '../api.js';

/** While the console waits out its rate limit, says so calmly; the page reads again by itself once it is over. */
export function BusyNotice() {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => onBusy(setSeconds), []);
  return (
    <p class={seconds > 0 ? 'warning' : undefined} role="status">
      {seconds > 0 ? `Many requests at once: the console waits ${seconds} s and reads this page again.` : ''}
    </p>
  );
}
