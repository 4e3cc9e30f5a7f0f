import type { WebhookTestAnswer } from '../contract/account.js';
import type { WebhookPayload } from '../contract/events.js';
import type { Gateway } from '../context.js';
import { getAccount } from '../domain/accounts.js';
import { signingSecrets } from '../domain/signing-secrets.js';
import { checkTarget } from '../domain/targets.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { noAnswer, postSigned } from './post-signed.js';

/**
 * Posts one `test` event to the account's Custom Channel Webhook URL now, signed, timed out and restricted as
 * deliveries are, so a receiver that passes it will pass real replies. Nothing is stored or retried: the caller
 * sees the receiver's answer at once.
 */
export async function sendTestEvent(gw: Gateway, accountId: string): Promise<WebhookTestAnswer> {
  const account = await getAccount(gw.store, accountId);
  const url = account.customChannelWebhookUrl;
  if (!url) throw new ApiError(409, 'NO_WEBHOOK_URL', 'No Custom Channel Webhook URL is set: save one first');
  await checkTarget(gw, url, 'customChannelWebhookUrl');

  const webhookId = newId('dlv');
  const payload: WebhookPayload<'test'> = {
    type: 'test',
    occurredAt: new Date().toISOString(),
    accountId,
    message: 'A test event from LeadChat: replies will arrive at this address, signed the same way.',
  };
  const body = JSON.stringify(payload);
  const started = Date.now();
  const result = (status: number | null, error: string | null) => ({
    url,
    status,
    ok: error === null,
    error,
    durationMs: Date.now() - started,
    webhookId,
  });
  try {
    const res = await postSigned(gw, url, { id: webhookId, type: 'test', body, secrets: signingSecrets(account) });
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return result(res.statusCode, ok ? null : `Receiver answered HTTP ${res.statusCode}`);
  } catch (err) {
    return result(null, noAnswer(gw, err));
  }
}
