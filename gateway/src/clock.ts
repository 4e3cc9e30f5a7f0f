/**
 * The gateway's time: every rule about time (follow-ups, pacing, sending windows, WhatsApp's 24-hour window,
 * expiries, retries, the job queue) reads it here, through clockNow().
 *
 * A served gateway runs on the system's time, moved forward only where the operator allows it (LEADCHAT_TEST_CLOCK,
 * POST /admin/v1/clock), so that a test sees a follow-up due in a day without waiting a day. A gateway made in a
 * test's own process runs on a manual clock instead: it stands still until the test moves it, so a debounce or a
 * lease is a jump, never a wait.
 *
 * The clock is the module graph's, not the engine's: the store, ids and errors read time too, far from any engine.
 * So every gateway of one process shares one clock; createGateway() refuses a second clock while one is in use.
 */
export interface Clock {
  /** Epoch milliseconds, now. */
  now(): number;
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void;
}

/** The system's time, plus however far it was moved forward. */
export function systemClock(): Clock {
  let offsetMs = 0;
  return { now: () => Date.now() + offsetMs, advance: (ms) => void (offsetMs += ms) };
}

/** A time that moves only when told, from `startMs` (the system's time by default). */
export function manualClock(startMs = Date.now()): Clock {
  let at = startMs;
  return { now: () => at, advance: (ms) => void (at += ms) };
}

let current: Clock = systemClock();
let holders = 0;
const moved = new Set<() => void>();

/** Epoch milliseconds, now. */
export const clockNow = (): number => current.now();

/** Moves the clock forward by `ms`, telling whoever waits for a time (the job queue); answers the new time. */
export function advanceClock(ms: number): number {
  if (ms < 0) throw new RangeError('the clock only moves forward');
  current.advance(ms);
  for (const listener of moved) listener();
  return clockNow();
}

/** Calls `listener` each time the clock is moved forward; answers how to stop. */
export function onClockAdvanced(listener: () => void): () => void {
  moved.add(listener);
  return () => void moved.delete(listener);
}

/**
 * Makes `clock` this process's time until the returned function is called; without one, the clock already held, or
 * the system's. Gateways sharing one clock may hold it together; another clock while it is held would move one
 * gateway's time under the other: refused.
 */
export function holdClock(clock?: Clock): () => void {
  const held = clock ?? (holders > 0 ? current : systemClock());
  if (holders > 0 && held !== current) throw new Error('Another gateway of this process runs on another clock');
  current = held;
  holders += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holders -= 1;
    // Held by none: the system's time again, for whatever reads it next in this process.
    if (holders === 0) current = systemClock();
  };
}
