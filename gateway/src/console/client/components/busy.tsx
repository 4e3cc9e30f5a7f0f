import { useEffect, useState } from 'preact/hooks';
import { onBusy, type BusyWhy } from '../api.js';

const WHY: Record<BusyWhy, string> = {
  rate: 'Many requests at once',
  away: 'The gateway is unavailable for a moment',
};

/**
 * While the console waits out its rate limit, or the gateway away for a moment, says so calmly; the page reads again
 * by itself once it is over.
 */
export function BusyNotice() {
  const [busy, setBusy] = useState<{ seconds: number; why: BusyWhy }>({ seconds: 0, why: 'rate' });
  useEffect(() => onBusy((seconds, why) => setBusy({ seconds, why })), []);
  return (
    <p class={busy.seconds > 0 ? 'warning' : undefined} role="status">
      {busy.seconds > 0 ? `${WHY[busy.why]}: the console waits ${busy.seconds} s and reads this page again.` : ''}
    </p>
  );
}
