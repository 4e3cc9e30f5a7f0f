/**
 * The gateway's time: every rule about time (follow-ups, pacing, sending windows, WhatsApp's 24-hour window,
 * expiries, retries, the job queue) reads it here. It is the system's time, moved forward only where the operator
 * allows it (LEADCHAT_TEST_CLOCK, POST /admin/v1/clock), so that a test sees a follow-up due in a day without
 * waiting a day.
 */
let offsetMs = 0;

/** Epoch milliseconds, now. */
export const clockNow = (): number => Date.now() + offsetMs;

/** Moves the clock forward by `ms`; answers the new time. */
export function advanceClock(ms: number): number {
  offsetMs += ms;
  return clockNow();
}
