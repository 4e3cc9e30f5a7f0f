import { createHmac, timingSafeEqual } from 'crypto';

/** Standard Webhooks allows this much clock difference between sender and receiver. */
export const TOLERANCE_SECONDS = 5 * 60;

export interface SignedRequest {
  id?: string;
  timestamp?: string;
  signature?: string;
  rawBody?: Buffer | string;
}

export type Verdict = { valid: true } | { valid: false; reason: string };

/** The HMAC key of a `whsec_<base64>` secret (a secret without the prefix is taken as the base64 part). */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.trim().replace(/^whsec_/, ''), 'base64');
}

/** `v1,<base64>` as the sender computes it for this message. */
export function sign(secret: string, id: string, timestamp: string, rawBody: Buffer | string): string {
  const hmac = createHmac('sha256', keyOf(secret));
  hmac.update(`${id}.${timestamp}.`);
  hmac.update(rawBody);
  return `v1,${hmac.digest('base64')}`;
}

/**
 * Standard Webhooks verification: `webhook-signature` holds one or more space-separated `v1,<base64 HMAC-SHA256>`
 * of `id.timestamp.rawBody`; the timestamp (unix seconds) must be within ±5 minutes. Compared in constant time.
 */
export function verifySignature(
  secret: string,
  request: SignedRequest,
  nowSeconds: number,
  toleranceSeconds = TOLERANCE_SECONDS,
): Verdict {
  const { id, timestamp, signature, rawBody } = request;
  if (!id || !timestamp || !signature) {
    return { valid: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature header' };
  }
  if (rawBody === undefined) return { valid: false, reason: 'no raw body to verify' };
  if (!/^\d+$/.test(timestamp)) return { valid: false, reason: 'webhook-timestamp is not unix seconds' };
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) {
    return { valid: false, reason: 'webhook-timestamp is outside the allowed 5 minutes' };
  }
  if (keyOf(secret).length === 0) return { valid: false, reason: 'the signing secret is empty or not base64' };

  const expected = Buffer.from(sign(secret, id, timestamp, rawBody));
  for (const candidate of signature.split(' ')) {
    const given = Buffer.from(candidate.trim());
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { valid: true };
  }
  return { valid: false, reason: 'no matching v1 signature' };
}
