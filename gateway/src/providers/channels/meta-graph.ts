import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest } from '../../errors.js';
import { ChannelError } from '../../engine/ports/channel-provider.js';
import { redact } from '../../domain/mask.js';

/**
 * What Meta's platforms (WhatsApp, Messenger, Instagram) share: the signed webhooks, the subscription handshake,
 * the Graph API's error answers, and reading their JSON without trusting its shape.
 */

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
/** A name Meta gives a kind of event or message, fit for a log line: as it is when it is a word, else "other". */
export const kindName = (v: unknown): string =>
  typeof v === 'string' && /^[a-z][a-z0-9_]{0,39}$/i.test(v) ? v : 'other';

/** The list at `where`, [] when absent; anything else there means the payload is not what Meta sends. */
export function list(value: unknown, where: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest(`${where}: expected a list`);
  return value;
}

export function record(value: unknown, where: string): Record<string, unknown> {
  if (!isRecord(value)) throw badRequest(`${where}: expected an object`);
  return value;
}

/** Whether X-Hub-Signature-256 ("sha256=<hex>") is Meta's HMAC of exactly these bytes under the app secret. */
export function verifyMetaSignature(appSecret: string, rawBody: Buffer, header: string | undefined): boolean {
  const given = typeof header === 'string' ? /^sha256=([0-9a-f]{64})$/i.exec(header.trim()) : null;
  if (!given || !appSecret || !Buffer.isBuffer(rawBody)) return false;
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(given[1]!, 'hex'));
}

/** Compares through fixed-length digests, so neither the content nor the length of the secret leaks by timing. */
function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** Meta's subscription handshake: the challenge to echo when it proves it knows the verify token, else undefined. */
export function verifyMetaSubscription(verifyToken: string, query: Record<string, unknown>): string | undefined {
  const mode = query['hub.mode'];
  const token = query['hub.verify_token'];
  const challenge = query['hub.challenge'];
  if (mode !== 'subscribe' || typeof token !== 'string' || typeof challenge !== 'string' || !challenge || !verifyToken)
    return undefined;
  return sameSecret(token, verifyToken) ? challenge : undefined;
}

/**
 * Graph error codes that mean "not now" rather than "never" on every Meta platform: a temporary failure (2) and the
 * Graph API's rate limits (4 application, 17 user, 32 Page, 613 calls per hour).
 */
const GRAPH_RETRYABLE_CODES: ReadonlySet<number> = new Set([2, 4, 17, 32, 613]);

/**
 * One sentence for a Graph error: the platform, its code (and subcode, which tells apart causes sharing a code),
 * its text without Graph's "(#code)" prefix, and the details Meta adds.
 */
export function describeGraphError(
  platform: string,
  code: string | null,
  message: string | undefined,
  details: string | undefined,
  subcode: string | null = null,
): string | null {
  const text = message?.replace(/^\(#\d+\)\s*/, '').slice(0, 500);
  const extra = details && details !== text ? ` (${details.slice(0, 500)})` : '';
  const sub = subcode ? ` (subcode ${subcode})` : '';
  if (code) return `${platform} ${code}${sub}: ${text ?? 'error'}${extra}`;
  return text ? `${platform}: ${text}${extra}` : null;
}

/** A numeric code of a Graph answer as a string, or null. */
const codeOf = (v: unknown): string | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? String(n) : null;
};

/**
 * A Graph API error answer `{error:{message, code, error_subcode, error_data, is_transient}}` as a ChannelError:
 * Meta's code kept as `code`, the access token never shown. It may pass later on HTTP 429 or 5xx, on a code Meta uses
 * for "not now" (GRAPH_RETRYABLE_CODES and the platform's own `retryableCodes`), or when Meta calls it transient.
 */
export function graphError(
  platform: string,
  status: number,
  answer: Record<string, unknown> | undefined,
  accessToken: string,
  retryableCodes: ReadonlySet<number> = new Set(),
): ChannelError {
  const error = isRecord(answer?.error) ? answer.error : {};
  const code = codeOf(error.code);
  const numeric = code === null ? NaN : Number(code);
  const details = isRecord(error.error_data) ? str(error.error_data.details) : undefined;
  const message =
    describeGraphError(platform, code, str(error.message), details, codeOf(error.error_subcode)) ??
    `${platform} answered HTTP ${status}`;
  const retryable =
    status === 429 ||
    status >= 500 ||
    GRAPH_RETRYABLE_CODES.has(numeric) ||
    retryableCodes.has(numeric) ||
    error.is_transient === true;
  return new ChannelError(redact(message, accessToken), retryable, code);
}
