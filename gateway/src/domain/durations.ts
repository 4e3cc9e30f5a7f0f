import { fieldError } from '../errors.js';
import { excerpt } from './storable-text.js';

/**
 * Durations and rates as the API writes them (DESIGN: "30s", "15m", "2h", "1d"; "30/m", "1/s").
 *
 * Durations: whole numbers of seconds (s), minutes (m), hours (h) or days (d), lower case, optionally combined
 * from the largest unit down with each unit at most once ("1h30m", "1d12h"). No fractions, signs, spaces inside
 * or other units. Surrounding whitespace is ignored. The canonical form (`formatDuration`) is the combined one
 * with the largest units first and zero parts left out: "90m" is stored and shown as "1h30m".
 *
 * Rates: `<count>/<unit>` with a whole count of at least 1 and one of the same four units ("30/m", "1000/d").
 * A rate faster than RATE_MAX_PER_MINUTE is refused: no channel sends that fast, and it is surely a typo.
 */

export const SECOND_MS = 1000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** Default bounds of a duration, inclusive; callers may narrow them (e.g. a follow-up of at least a minute). */
export const DURATION_MIN_MS = SECOND_MS;
export const DURATION_MAX_MS = 30 * DAY_MS;
/** Rates: at least one message a day, at most 100 a second. */
export const RATE_MAX_PER_MINUTE = 6000;

const UNITS = { d: DAY_MS, h: HOUR_MS, m: MINUTE_MS, s: SECOND_MS } as const;
type Unit = keyof typeof UNITS;

const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
const RATE = /^(\d+)\/([smhd])$/;

export interface DurationOptions {
  /** The name used in the error message, e.g. "delay". */
  field?: string;
  min?: number;
  max?: number;
}

/** "1h30m" → 5400000. Throws a 400 ApiError (code INVALID_DURATION) naming `field` otherwise. */
export function parseDuration(
  input: unknown,
  { field = 'duration', min = DURATION_MIN_MS, max = DURATION_MAX_MS }: DurationOptions = {},
): number {
  const refuse = (message: string) => fieldError(field, message, 'INVALID_DURATION', ' ');
  const shape = 'must be a duration such as "15m": a whole number of s, m, h or d ("30s", "2h", "1d", "1h30m")';
  if (typeof input !== 'string') throw refuse(shape);
  const text = input.trim();
  const parts = text === '' ? null : DURATION.exec(text);
  if (!parts) throw refuse(`${shape}; got "${excerpt(input, 40)}"`);
  const [, d, h, m, s] = parts.map(Number);
  const ms = (d || 0) * DAY_MS + (h || 0) * HOUR_MS + (m || 0) * MINUTE_MS + (s || 0) * SECOND_MS;
  if (!Number.isSafeInteger(ms) || ms < min || ms > max) {
    throw refuse(`must be between ${formatDuration(min)} and ${formatDuration(max)}; got "${excerpt(text, 40)}"`);
  }
  return ms;
}

/** 5400000 → "1h30m"; 0 → "0s". Sub-second remainders are dropped (durations are whole seconds). */
export function formatDuration(ms: number): string {
  let rest = Math.max(0, Math.floor(ms / SECOND_MS)) * SECOND_MS;
  let out = '';
  for (const [unit, size] of Object.entries(UNITS)) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out || '0s';
}

export interface Rate {
  count: number;
  /** The period the count applies to: one of SECOND_MS, MINUTE_MS, HOUR_MS, DAY_MS. */
  perMs: number;
}

/** "30/m" → {count: 30, perMs: 60000}. Throws a 400 ApiError (code INVALID_RATE) naming `field` otherwise. */
export function parseRate(input: unknown, field = 'rate'): Rate {
  const refuse = (message: string) => fieldError(field, message, 'INVALID_RATE', ' ');
  const shape = 'must be a rate such as "30/m": a whole number of messages per s, m, h or d ("5/s", "100/h", "1000/d")';
  const parts = typeof input === 'string' ? RATE.exec(input.trim()) : null;
  if (!parts) throw refuse(typeof input === 'string' ? `${shape}; got "${excerpt(input, 40)}"` : shape);
  const count = Number(parts[1]);
  const rate = { count, perMs: UNITS[parts[2] as Unit] };
  if (count < 1 || perMinute(rate) > RATE_MAX_PER_MINUTE) {
    throw refuse(`must be at least 1/d and at most ${RATE_MAX_PER_MINUTE}/m; got "${input as string}"`);
  }
  return rate;
}

/** Messages per minute, possibly fractional (1/h → 1/60). */
export const perMinute = (rate: Rate): number => (rate.count * MINUTE_MS) / rate.perMs;

/** {count: 30, perMs: 60000} → "30/m". */
export function formatRate(rate: Rate): string {
  const unit = (Object.keys(UNITS) as Unit[]).find((u) => UNITS[u] === rate.perMs);
  if (!unit) throw new RangeError(`not a rate period: ${rate.perMs} ms`);
  return `${rate.count}/${unit}`;
}
