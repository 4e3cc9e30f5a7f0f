import type { InProcessGateway } from '../helpers/in-process';
import { clockOf, untilIdle } from '../helpers/gateway';

/** Business hours are set in UTC around a gateway's test clock, moved to a known hour first. */
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Moves the gateway's clock to the next `hour`:00 UTC (today's, when it is still to come); answers that instant. */
export async function atHour(gw: InProcessGateway, hour: number): Promise<number> {
  const now = clockOf(gw);
  let at = Math.floor(now / DAY) * DAY + hour * HOUR;
  if (at <= now) at += DAY;
  await gw.advance(at - now);
  return at;
}

/** Moves the gateway's clock by `ms`, and runs what fell due. */
export async function elapse(gw: InProcessGateway, ms: number): Promise<void> {
  await gw.advance(ms);
  await untilIdle(gw);
}

/** Business hours in UTC, "HH:MM" of the instants given, on `days` (every day when null). */
export const utcHours = (from: number, to: number, days: string[] | null = null) => ({
  start: new Date(from).toISOString().slice(11, 16),
  end: new Date(to).toISOString().slice(11, 16),
  timezone: 'UTC',
  days,
});
