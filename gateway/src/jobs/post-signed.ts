import type { Gateway } from '../context.js';
import { signatureHeaders } from '../domain/signature.js';
import { guard } from '../outbound/guard.js';

/**
 * One signed POST of a webhook event to a receiver, as every delivery and the test event make it: Standard Webhooks
 * headers, the configured timeout, no retry (the caller decides), no redirect, and the target policy held at connect
 * time, even when a name resolves to an address the policy refuses.
 */
export async function postSigned(
  gw: Gateway,
  url: string,
  event: { id: string; type: string; body: string; secret: string },
) {
  // Loaded on the first webhook rather than at start-up.
  const { got } = await import('got');
  return got.post(url, {
    body: event.body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'LeadChat-Webhooks/1',
      'webhook-event': event.type,
      ...signatureHeaders(event.secret, event.id, event.body),
    },
    timeout: { request: gw.config.webhookTimeoutMs },
    retry: { limit: 0 },
    throwHttpErrors: false,
    followRedirect: false,
    ...guard(gw.config.targetPolicy),
  });
}

/** Why a receiver gave no answer, in the words deliveries record. */
export function noAnswer(gw: Gateway, err: unknown): string {
  const e = err as { code?: string; message?: string };
  return e.code === 'ETIMEDOUT'
    ? `Receiver did not answer within ${gw.config.webhookTimeoutMs} ms`
    : `${e.code ?? 'ERROR'}: ${e.message}`;
}
