/** How the node behaves when the API answers 429 (spec §8: back off, retry after the time the response names). */
export interface RetryPolicy {
  /** Retries after a 429 before the item fails. */
  maxRetries: number;
  /** Longest single wait, whatever the server asks for. */
  maxWaitSeconds: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, maxWaitSeconds: 60 };

type HeaderValue = string | string[] | number | undefined | null;

function first(value: HeaderValue): string | undefined {
  if (value === undefined || value === null) return undefined;
  return String(Array.isArray(value) ? value[0] : value).trim();
}

/**
 * Seconds the server asks us to wait: `Retry-After` as seconds or an HTTP date, else the `t=` of an IETF
 * `RateLimit` header (draft 8), else undefined.
 */
export function retryAfterSeconds(headers: Record<string, HeaderValue> | undefined, nowMs: number): number | undefined {
  const lower: Record<string, HeaderValue> = {};
  for (const [key, value] of Object.entries(headers ?? {})) lower[key.toLowerCase()] = value;

  const retryAfter = first(lower['retry-after']);
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Number(retryAfter);
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.max(0, (date - nowMs) / 1000);
  }
  const rateLimit = first(lower['ratelimit']);
  const reset = rateLimit ? /(?:^|[;,\s])t=(\d+)/.exec(rateLimit) : null;
  if (reset) return Number(reset[1]);
  return undefined;
}

/** The wait before retry number `attempt` (0-based): what the server asked for, else 1 s, 2 s, 4 s…, never over the cap. */
export function waitSeconds(asked: number | undefined, attempt: number, policy: RetryPolicy): number {
  const fallback = 2 ** attempt;
  const wanted = asked === undefined ? fallback : Math.max(asked, 0.5);
  return Math.min(wanted, Math.max(policy.maxWaitSeconds, 0));
}
