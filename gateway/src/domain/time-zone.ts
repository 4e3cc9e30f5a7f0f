/** A time zone's clocks, read with Intl: an IANA name such as "America/New_York", one formatter per zone. */

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's formatter; a RangeError for a name that is no IANA time zone. */
function formatter(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timezone, f);
  }
  return f;
}

/** Intl's canonical name of the zone ("utc" → "UTC", "US/Eastern" → "America/New_York"); a RangeError for none. */
export const canonicalZone = (timezone: string): string => formatter(timezone).resolvedOptions().timeZone;

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
