import { useLiveState } from '../../live.js';
import { POLL_MS } from '../../live-reload.js';

/** Says so while the stream is down: the inbox still shows changes, within seconds instead of at once. */
export function LiveStatus() {
  const down = useLiveState() === 'down';
  return (
    <p class={down ? 'warning live-status' : 'live-status'} role="status">
      {down
        ? `Live updates are interrupted: the inbox reads again every ${POLL_MS / 1000} seconds until they are back.`
        : ''}
    </p>
  );
}
