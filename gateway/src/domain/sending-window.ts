import { ApiError, badRequest, fieldError } from '../errors.js';
import { DAY_MS, HOUR_MS, MINUTE_MS } from './durations.js';
import { WEEKDAYS, type SendingWindow, type Weekday } from '../api-contract.js';
import { canonicalZone, offsetAt, wallClock } from './time-zone.js';

/**
 * A campaign's sending window (quiet hours outside it): messages due outside it wait for its next opening. The
 * account's business hours are the same kind of window (hand-off notices and reminders keep to them).
 *
 * Rules:
 * - `start` and `end` are local wall-clock times "HH:MM" (24 h, two digits each, "00:00" to "23:59") in `timezone`,
 *   an IANA zone that Intl knows; it is stored under its canonical name ("utc" → "UTC", "US/Eastern" →
 *   "America/New_York" where ICU maps it), the current one where ICU keeps an older ("Asia/Kolkata", not
 *   "Asia/Calcutta"). start = end is refused: say nothing to mean "always".
 * - The window is [start, end): open at start, closed from end. end < start crosses midnight ("21:00"–"06:00").
 * - `days` (null: every day) are the days of the zone's week it opens on, kept in the week's order, Monday first. A
 *   window that crosses midnight opens on those days and closes the next morning: Friday's "21:00"–"06:00" ends on
 *   Saturday at 06:00, and none opens on Saturday evening without "sat".
 * - Membership is by the local time of day, so on DST days the window follows the clocks: a start that does not
 *   exist (spring forward, e.g. 02:30 in New York) opens at the first instant after it (03:00 EDT); a time that
 *   happens twice (fall back) opens at its first occurrence, and again if the clocks turn back into the window.
 *
 * Built on Intl alone: the engine needs the exact first valid instant after a skipped time, which date libraries
 * resolve differently (luxon moves the time forward by the gap: 02:30 → 03:30), so a library would not save code.
 */

/**
 * How far ahead `nextOpening` looks: a day the window opens on comes round within a week, and any real zone opens a
 * non-empty window on it, unless its clocks skip the whole window that night; then it opens the week after.
 */
export const SEARCH_DAYS = 15;

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Which setting a window is, as its refusals name it: a campaign's sending window, or the account's business hours. */
export interface WindowSetting {
  field: string;
  code: string;
}
export const SENDING_WINDOW: WindowSetting = { field: 'sendingWindow', code: 'INVALID_SENDING_WINDOW' };
export const BUSINESS_HOURS: WindowSetting = { field: 'businessHours', code: 'INVALID_BUSINESS_HOURS' };

const windowError = (setting: WindowSetting, field: 'start' | 'end' | 'timezone' | 'days', message: string) =>
  fieldError(`${setting.field}.${field}`, message, setting.code, ' ');

function minuteOfDay(value: unknown, field: 'start' | 'end', setting = SENDING_WINDOW): number {
  const m = typeof value === 'string' ? HHMM.exec(value.trim()) : null;
  if (!m) throw windowError(setting, field, 'must be a time "HH:MM" between "00:00" and "23:59" (24-hour clock)');
  return Number(m[1]) * 60 + Number(m[2]);
}

const DAY_NAMES = `${WEEKDAYS.slice(0, -1).join(', ')} or ${WEEKDAYS.at(-1)}`;

/** A text short enough to be quoted back in a message, as JSON writes it; undefined otherwise. */
const quoted = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length <= 20 ? JSON.stringify(value) : undefined;

/** The days a window opens on, each once and in the week's order; null (every day) when none are given. */
function weekdays(value: unknown, setting: WindowSetting): Weekday[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value))
    throw windowError(setting, 'days', `must be a list of days of the week, such as ["mon","tue"]`);
  if (value.length === 0)
    throw windowError(
      setting,
      'days',
      'must name at least one day; leave it out, or give null, for a window open every day',
    );
  const seen = new Set<string>();
  for (const day of value) {
    const name = typeof day === 'string' ? day.trim() : undefined;
    if (!name || !(WEEKDAYS as readonly string[]).includes(name)) {
      const which = quoted(day);
      throw windowError(
        setting,
        'days',
        `must name days by their three lowercase letters, ${DAY_NAMES}${which ? `: ${which} is none of them` : ''}`,
      );
    }
    if (seen.has(name)) throw windowError(setting, 'days', `must name each day once: "${name}" is there twice`);
    seen.add(name);
  }
  return WEEKDAYS.filter((day) => seen.has(day));
}

/**
 * Why a zone written as an offset, or as a US abbreviation that names standard time all year, is no window's zone:
 * its clocks never change, so the window would drift by an hour from its leads' each spring and autumn; and in
 * "Etc/GMT-1" (one hour ahead of UTC) the sign reads the wrong way. Undefined for any other name. Offsets are
 * refused whether or not the runtime's Intl takes them ("+01:00" is a zone to newer ones).
 */
function fixedClocks(name: string): string | undefined {
  const offset = /^(?:(?:etc\/)?(?:gmt|utc))?\s*[+\-\u2212]\s*\d/i.test(name);
  if (offset)
    return (
      'must be the IANA time zone of a place such as "Europe/Berlin", not a fixed offset from UTC: an offset keeps no ' +
      'daylight-saving time, so the window would be an hour off half the year (and "Etc/GMT-1" is one hour ahead of UTC)'
    );
  const standard = STANDARD_ALL_YEAR[name.toUpperCase()];
  if (standard)
    return (
      `must be the IANA time zone of a place: "${name}" keeps ${standard.time} all year, without daylight-saving ` +
      `time; give "${standard.zone}" for its clocks, or "${standard.allYear}" for a place on ${standard.time} all year`
    );
  return undefined;
}

/** The US abbreviations Intl takes as zones on standard time all year ("EST" is "America/Panama"). */
const STANDARD_ALL_YEAR: Record<string, { time: string; zone: string; allYear: string }> = {
  EST: { time: 'Eastern Standard Time', zone: 'America/New_York', allYear: 'America/Panama' },
  MST: { time: 'Mountain Standard Time', zone: 'America/Denver', allYear: 'America/Phoenix' },
};

/**
 * Validates and normalizes a window (trimmed times, canonical zone). Throws a 400 ApiError naming the bad field of
 * `setting` (sendingWindow.start, businessHours.days, ...).
 * `kept`: the zone the campaign has, taken again as it is, so a campaign saved with one now refused still changes.
 */
export function parseSendingWindow(input: unknown, kept?: string, setting = SENDING_WINDOW): SendingWindow {
  const { field, code } = setting;
  if (!input || typeof input !== 'object') throw badRequest(`${field} must be an object {start, end, timezone}`, code);
  const { start, end, timezone, days } = input as Record<string, unknown>;
  const from = minuteOfDay(start, 'start', setting);
  const to = minuteOfDay(end, 'end', setting);
  if (from === to) {
    const fields = [{ field: `${field}.end`, code, message: 'must differ from the start' }];
    throw new ApiError(400, code, `${field}.start and ${field}.end must differ`, {}, fields);
  }
  const fixed = typeof timezone === 'string' && timezone.trim() !== kept ? fixedClocks(timezone.trim()) : undefined;
  if (fixed) throw windowError(setting, 'timezone', fixed);
  let zone: string;
  try {
    if (typeof timezone !== 'string' || !timezone.trim()) throw new RangeError();
    zone = canonicalZone(timezone.trim());
  } catch {
    throw windowError(setting, 'timezone', 'must be an IANA time zone such as "America/New_York"');
  }
  return {
    start: (start as string).trim(),
    end: (end as string).trim(),
    timezone: zone,
    days: weekdays(days, setting),
  };
}

/** The instants whose local time is `wall` (none in a gap, two in an overlap), earliest first. */
function instantsOf(timezone: string, wall: number): number[] {
  const offsets = new Set([offsetAt(timezone, wall - DAY_MS), offsetAt(timezone, wall + DAY_MS)]);
  return [...offsets]
    .map((o) => wall - o)
    .filter((t) => wallClock(timezone, t) === wall)
    .sort((a, b) => a - b);
}

/** The instants in (from, to] where the zone's offset changes (the clocks jump), found to the millisecond. */
function transitions(timezone: string, from: number, to: number): number[] {
  const found: number[] = [];
  const step = 6 * HOUR_MS; // real zones never change offset twice within a few hours
  let before = offsetAt(timezone, from);
  for (let lo = from; lo < to; lo += step) {
    let [a, b] = [lo, Math.min(lo + step, to)];
    const after = offsetAt(timezone, b);
    if (after === before) continue;
    while (b - a > 1) {
      const mid = Math.floor((a + b) / 2);
      if (offsetAt(timezone, mid) === before) a = mid;
      else b = mid;
    }
    found.push(b);
    before = after;
  }
  return found;
}

/** Whether two windows are the same: the same hours, zone and days, however a store ordered their keys. */
export const sameWindow = (a: SendingWindow | null, b: SendingWindow | null): boolean =>
  a === b ||
  (!!a &&
    !!b &&
    a.start === b.start &&
    a.end === b.end &&
    a.timezone === b.timezone &&
    (a.days ?? WEEKDAYS).join() === (b.days ?? WEEKDAYS).join());

/** Whether the window opens on the local day of `wall` (a wall-clock time written as if it were a UTC instant). */
function opensOn(window: SendingWindow, wall: number): boolean {
  if (!window.days) return true;
  return window.days.includes(WEEKDAYS[(new Date(wall).getUTCDay() + 6) % 7]!);
}

/** Whether the instant `at` is inside the window. Expects a window from parseSendingWindow. */
export function isOpen(window: SendingWindow, at: number): boolean {
  const wall = wallClock(window.timezone, at);
  const timeOfDay = ((wall % DAY_MS) + DAY_MS) % DAY_MS;
  const start = minuteOfDay(window.start, 'start') * MINUTE_MS;
  const end = minuteOfDay(window.end, 'end') * MINUTE_MS;
  if (start < end) return timeOfDay >= start && timeOfDay < end && opensOn(window, wall);
  if (timeOfDay >= start) return opensOn(window, wall);
  // Past midnight: the window opened the evening before, on that day's terms.
  return timeOfDay < end && opensOn(window, wall - DAY_MS);
}

/**
 * `at` itself when the window is open then, else the first later instant (epoch ms) at which it opens: either the
 * local start time or a clock change that lands inside the window (a skipped start, a turned-back clock).
 */
export function nextOpening(window: SendingWindow, at: number): number {
  if (isOpen(window, at)) return at;
  const startOfLocalDay = Math.floor(wallClock(window.timezone, at) / DAY_MS) * DAY_MS;
  const start = minuteOfDay(window.start, 'start') * MINUTE_MS;
  // A day at a time, so that a window open every day costs one day's look, and one open on Sundays no more than needed.
  for (let day = 0; day < SEARCH_DAYS; day++) {
    const [from, to] = [at + day * DAY_MS, at + (day + 1) * DAY_MS];
    const candidates = transitions(window.timezone, from, to);
    for (let local = day - 1; local <= day + 2; local++)
      candidates.push(...instantsOf(window.timezone, startOfLocalDay + local * DAY_MS + start));
    const opening = candidates.filter((t) => t > from && t <= to && isOpen(window, t)).sort((a, b) => a - b)[0];
    if (opening !== undefined) return opening;
  }
  throw new Error(
    `sending window ${JSON.stringify(window)} does not open within ${SEARCH_DAYS} days of ${new Date(at).toISOString()}`,
  );
}

/**
 * `at` itself when the window is closed then, else the first later instant (epoch ms) at which it closes: the local
 * end time, or a clock change that leaves the window (a skipped end, a clock turned back before the start).
 */
export function nextClosing(window: SendingWindow, at: number): number {
  if (!isOpen(window, at)) return at;
  const startOfLocalDay = Math.floor(wallClock(window.timezone, at) / DAY_MS) * DAY_MS;
  const end = minuteOfDay(window.end, 'end') * MINUTE_MS;
  // start ≠ end: an open window closes within a day or two, whatever its days.
  for (let day = 0; day < SEARCH_DAYS; day++) {
    const [from, to] = [at + day * DAY_MS, at + (day + 1) * DAY_MS];
    const candidates = transitions(window.timezone, from, to);
    for (let local = day - 1; local <= day + 2; local++)
      candidates.push(...instantsOf(window.timezone, startOfLocalDay + local * DAY_MS + end));
    const closing = candidates.filter((t) => t > from && t <= to && !isOpen(window, t)).sort((a, b) => a - b)[0];
    if (closing !== undefined) return closing;
  }
  throw new Error(
    `sending window ${JSON.stringify(window)} does not close within ${SEARCH_DAYS} days of ${new Date(at).toISOString()}`,
  );
}
