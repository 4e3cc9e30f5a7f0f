/**
 * The gateway's time: every rule about time (follow-ups, pacing, sending windows, WhatsApp's 24-hour window,
 * expiries, retries, the job queue) reads it here. It is the system's time, moved forward only where the operator
 * allows it (LEADCHAT_TEST_CLOCK, POST /admin/v1/clock), so that a test sees a follow-up due in a day without
 * waiting a day.
 */
let offsetMs = 0;
const moved = new Set<() => void>();

/** Epoch milliseconds, now. */
export const clockNow = (): number => Date.now() + offsetMs;

/** Moves the clock forward by `ms`, telling whoever waits for a time (the job queue); answers the new time. */
export function advanceClock(ms: number): number {
  offsetMs += ms;
  for (const listener of moved) listener();
  return clockNow();
}

/** Calls `listener` each time the clock is moved forward; answers how to stop. */
export function onClockAdvanced(listener: () => void): () => void {
  moved.add(listener);
  return () => void moved.delete(listener);
}
