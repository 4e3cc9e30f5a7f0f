import type { SendingWindow } from '../api-contract.js';
import { isOpen, nextClosing, nextOpening } from './sending-window.js';

/**
 * When `wait` ms of the team's working time have passed since `from` (epoch ms): only time within `hours` (the
 * account's businessHours) counts, real time as it passes, so a night the clocks change counts the hour it really
 * lasts and no more. A wait that runs out as the hours close is due at the next opening instead: the instant it
 * answers is always within the hours. No hours (null): always open, `from + wait`.
 *
 * Handed off at 22:00 with a wait of 15 minutes, under "09:00"–"18:00": due at 09:15 the next day the hours open on;
 * at 17:55, the 5 minutes before closing count and the rest runs from the next opening: 09:10.
 *
 * At most MAX_STRETCHES open stretches are counted, and a wait longer than they hold is due at the next opening: hours
 * of a minute a week under a wait of 7 days would otherwise be counted a stretch at a time, for seconds of the one
 * thread every account shares, to a reminder due in two centuries.
 */
export function afterBusinessTime(hours: SendingWindow | null | undefined, from: number, wait: number): number {
  if (!hours) return from + wait;
  let left = wait;
  let at = nextOpening(hours, from);
  // Each turn spends one open stretch; a wait of days crosses as many closings.
  for (let stretch = 1; ; stretch++) {
    const closing = nextClosing(hours, at);
    if (at + left < closing) return at + left;
    left -= closing - at;
    at = nextOpening(hours, closing);
    if (left === 0 || stretch === MAX_STRETCHES) return at;
  }
}

/** Two months of hours open every day: a week's wait under hours of an hour a day, or of two a weekday, fits. */
export const MAX_STRETCHES = 62;

/** Whether the team is out of its business hours at `at`: never when the account has none. */
export const outOfHours = (hours: SendingWindow | null | undefined, at: number): boolean =>
  !!hours && !isOpen(hours, at);

/**
 * The team's hours as the inbox tells them at `at`: whether they are out, when they are next back, and when that
 * changes (the next opening or closing). Null when the account has no hours: always open, nothing to tell.
 */
export function hoursAt(
  hours: SendingWindow | null | undefined,
  at: number,
): { outOfHours: boolean; backAt: number | null; changesAt: number } | null {
  if (!hours) return null;
  if (!isOpen(hours, at)) {
    const back = nextOpening(hours, at);
    return { outOfHours: true, backAt: back, changesAt: back };
  }
  return { outOfHours: false, backAt: null, changesAt: nextClosing(hours, at) };
}

/** "Mon 09:00": an instant as the team's clocks in `timezone` read it, the day of the week beside the time. */
export const dayAndTime = (timezone: string, at: number): string =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(at);
