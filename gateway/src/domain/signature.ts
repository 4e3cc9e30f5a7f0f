import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signing: `webhook-signature: v1,<base64 HMAC-SHA256(secret, "id.timestamp.body")>`, the
 * secret being the base64 part of `whsec_…`; one signature per secret, space-separated (a rotation's new secret
 * first, then those it replaced), so that a receiver holding any one of them verifies.
 */
export function signatureHeaders(
  secrets: readonly string[],
  id: string,
  body: string,
  at = new Date(),
): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signed = `${id}.${timestamp}.${body}`;
  const signatures = secrets.map(
    (secret) =>
      `v1,${createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
        .update(signed)
        .digest('base64')}`,
  );
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signatures.join(' ') };
}
