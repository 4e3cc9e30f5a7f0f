import type { SendingWindow } from '../api-contract.js';
import type { Rate } from '../domain/durations.js';
import { nextOpening } from '../domain/sending-window.js';

/**
 * The paced queue of a campaign's opening messages (spec §3.2): of the additions that arrive together, the first
 * BURST go at once and the rest one per interval of the campaign's rate. A pure step over a small state the
 * engine keeps in a store document, one per campaign, updated in the transaction that schedules the send.
 *
 * Rules:
 * - Additions arrive together when they come within BURST_WINDOW_MS of the first one of their burst.
 * - A new burst (immediate sends again) starts only once that window has passed *and* the queue has drained
 *   (its next slot is not in the future): a lead added later never overtakes queued ones, and the rate is never
 *   exceeded by more than one burst. Additions after the window while the queue still drains join the queue.
 * - The interval is the rate's period divided by its count, rounded up to a whole millisecond (never faster than
 *   the rate). After an immediate send the next queued slot is one interval later: 100 additions at once at
 *   "30/m" go 3 at t0, then t0+2s, t0+4s, … t0+194s.
 * - A slot is never before `now`: a queue that fell behind (a pause, a restart) resumes from now, not in a rush.
 * - A queued send that finds its campaign stalled (its slot passed more than `lateAfterMs` ago and nothing of the
 *   campaign was sent since: no process ran jobs, a restart) takes a new slot instead of going at once, and so does
 *   every send due before that moment. So what came due during an outage is paced from then on, not sent in a rush. A queue that is merely behind (sends keep
 *   going, later than their slots under load) is not stalled and catches up in order; a timer firing a little late
 *   is not stalled either.
 * - With a sending window, a slot is where the window is open: one the queue would give past its end (more openings
 *   than it lets go today) is at its next opening instead, and the queue goes on from there at the rate.
 */

export const BURST = 3;
export const BURST_WINDOW_MS = 10_000;

export interface PacingState {
  /** When the current burst's first addition arrived (epoch ms). */
  burstStartedAt: number;
  /** How many of the current burst were sent at once. */
  burstCount: number;
  /** The earliest slot (epoch ms) for the next queued send. */
  nextSlotAt: number;
}

/** The state of a campaign that never sent: the first addition starts a burst. */
export const INITIAL_PACING: PacingState = { burstStartedAt: 0, burstCount: 0, nextSlotAt: 0 };

export const intervalMs = (rate: Rate): number => Math.ceil(rate.perMs / rate.count);

/** How long past its slot a send must be before its campaign can count as stalled: 10 s, or two intervals. */
export const lateAfterMs = (rate: Rate): number => Math.max(10_000, 2 * intervalMs(rate));

/** Whether a send due at `dueAt` finds its campaign stalled at `now`, the campaign's last send at `lastSentAt`. */
export function stalled(dueAt: number, now: number, lastSentAt: number | undefined, rate: Rate): boolean {
  return now - dueAt > lateAfterMs(rate) && (lastSentAt ?? 0) < dueAt;
}

/**
 * When an opening that waited goes, paced anew after a change of rate or window (`sendAt`), and the state to keep:
 * the next slot of the queue, never a burst's (it is no new addition), so those added meanwhile keep theirs.
 */
export function nextQueuedSend(
  state: PacingState | undefined,
  now: number,
  rate: Rate,
): { sendAt: number; state: PacingState } {
  const s = state ?? INITIAL_PACING;
  const sendAt = Math.max(s.nextSlotAt, now);
  return { sendAt, state: { ...s, nextSlotAt: sendAt + intervalMs(rate) } };
}

/** When the next addition's opening message goes (`sendAt`, epoch ms) and the state to keep for the one after. */
export function nextSend(
  state: PacingState | undefined,
  now: number,
  rate: Rate,
): { sendAt: number; state: PacingState } {
  const s = state ?? INITIAL_PACING;
  const interval = intervalMs(rate);
  const windowOpen = now - s.burstStartedAt < BURST_WINDOW_MS;
  const newBurst = !windowOpen && s.nextSlotAt <= now;
  const burstStartedAt = newBurst ? now : s.burstStartedAt;
  const burstCount = newBurst ? 0 : s.burstCount;
  if (burstCount < BURST && (newBurst || windowOpen)) {
    return {
      sendAt: now,
      state: { burstStartedAt, burstCount: burstCount + 1, nextSlotAt: Math.max(s.nextSlotAt, now + interval) },
    };
  }
  const sendAt = Math.max(s.nextSlotAt, now);
  return { sendAt, state: { burstStartedAt, burstCount, nextSlotAt: sendAt + interval } };
}

/** A step of the pace: when the next send goes, and the state to keep (nextSend, nextQueuedSend). */
export type PaceStep = (
  state: PacingState | undefined,
  now: number,
  rate: Rate,
) => { sendAt: number; state: PacingState };

/**
 * `step` with its slots inside the sending window: a slot where the window is closed moves to its next opening, and
 * the next slot is one interval after that. So the conversation's `next.at` is when the message goes, and those queued
 * after it stay after it, instead of a send finding the window shut and taking a slot behind the whole queue.
 */
export function withinWindow(step: PaceStep, window: SendingWindow | null): PaceStep {
  if (!window) return step;
  return (state, now, rate) => {
    const paced = step(state, now, rate);
    const sendAt = nextOpening(window, paced.sendAt);
    if (sendAt === paced.sendAt) return paced;
    return { sendAt, state: { ...paced.state, nextSlotAt: sendAt + intervalMs(rate) } };
  };
}
