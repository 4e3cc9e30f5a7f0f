/** A time zone's clocks, read with Intl: an IANA name such as "America/New_York", one formatter per zone. */

import { DAY_MS } from './durations.js';

/**
 * One formatter per zone, found by each name it was asked by. Names come from requests (a funnel's `timezone`, a
 * sending window's), and Intl takes any case of a name ("asia/CALCUTTA"): a formatter per spelling holds some 30 kB
 * of ICU's memory each, so a client asking in ever new spellings would grow the process without end. The spellings
 * kept are bounded; the zones, a few hundred, are not.
 */
const byZone = new Map<string, Intl.DateTimeFormat>();
const byName = new Map<string, Intl.DateTimeFormat>();
const NAMES_KEPT = 1000;

/** The zone's formatter; a RangeError for a name that is no IANA time zone. */
function formatter(timezone: string): Intl.DateTimeFormat {
  const kept = byName.get(timezone);
  if (kept) return kept;
  const made = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const zone = made.resolvedOptions().timeZone;
  let f = byZone.get(zone);
  if (!f) byZone.set(zone, (f = made));
  if (byName.size >= NAMES_KEPT) byName.delete(byName.keys().next().value!);
  byName.set(timezone, f);
  return f;
}

/** How many formatters the process holds: one per zone asked for, however it was spelled. */
export const formattersHeld = (): number => byZone.size;

/**
 * Zones whose name ICU keeps, for stability, as it was before the IANA database renamed them: Intl answers
 * "Asia/Calcutta" for "Asia/Kolkata" and "Europe/Kiev" for "Europe/Kyiv". Each is the zone's current name (both
 * name the same clocks), which a business knows it by.
 */
const CURRENT_NAMES: Record<string, string> = {
  'Africa/Asmera': 'Africa/Asmara',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Catamarca': 'America/Argentina/Catamarca',
  'America/Cordoba': 'America/Argentina/Cordoba',
  'America/Godthab': 'America/Nuuk',
  'America/Indianapolis': 'America/Indiana/Indianapolis',
  'America/Jujuy': 'America/Argentina/Jujuy',
  'America/Louisville': 'America/Kentucky/Louisville',
  'America/Mendoza': 'America/Argentina/Mendoza',
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Rangoon': 'Asia/Yangon',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Europe/Kiev': 'Europe/Kyiv',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Ponape': 'Pacific/Pohnpei',
  'Pacific/Truk': 'Pacific/Chuuk',
};

/**
 * The zone's canonical name ("utc" → "UTC", "US/Eastern" → "America/New_York"), its current IANA name where Intl
 * keeps an older one ("Asia/Calcutta" → "Asia/Kolkata"); a RangeError for none.
 */
export function canonicalZone(timezone: string): string {
  const name = formatter(timezone).resolvedOptions().timeZone;
  return CURRENT_NAMES[name] ?? name;
}

/** Whether the runtime knows the time zone. */
export function knownZone(timezone: string): boolean {
  try {
    return Boolean(formatter(timezone));
  } catch {
    return false;
  }
}

/** The local wall-clock time of an instant, written as if it were a UTC instant (milliseconds kept). */
export function wallClock(timezone: string, at: number): number {
  const p: Record<string, number> = {};
  for (const { type, value } of formatter(timezone).formatToParts(at)) p[type] = Number(value);
  const seconds = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return seconds + (((at % 1000) + 1000) % 1000);
}

/** How far the zone's clocks are ahead of UTC at an instant, in milliseconds. */
export const offsetAt = (timezone: string, at: number): number => wallClock(timezone, at) - at;

/**
 * The instant whose local time is `wall` (a wall-clock time written as if it were a UTC instant): its first occurrence
 * where the clocks turned back over it, and where they jumped over it the first instant after it, the jump itself
 * (02:30 in New York on the day it skips from 02:00 to 03:00 is 03:00 EDT), as a sending window's start is read.
 */
export function instantAt(timezone: string, wall: number): number {
  const before = offsetAt(timezone, wall - DAY_MS);
  const after = offsetAt(timezone, wall + DAY_MS);
  const found = [wall - before, wall - after].filter((t) => wallClock(timezone, t) === wall).sort((a, b) => a - b);
  if (found.length > 0) return found[0]!;
  // Skipped: read with the offset after the jump, `wall` falls before it; with the one before, after it.
  let [lo, hi] = [wall - after, wall - before];
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(timezone, mid) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** `days` days of the zone's calendar after `at`, at the same local time: 23 or 25 hours across a change of clocks. */
export const addLocalDays = (timezone: string, at: number, days: number): number =>
  instantAt(timezone, wallClock(timezone, at) + days * DAY_MS);
