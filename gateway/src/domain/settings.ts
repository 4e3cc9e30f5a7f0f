import type { Gateway } from '../context.js';
import { ApiError } from '../errors.js';
import { DEFAULT_HELP_TEXT } from '../engine/texts.js';
import { newId } from '../ids.js';
import { noAnswer, postSigned } from '../jobs/post-signed.js';
import { getAccount, type Account } from './accounts.js';
import { newWebhookSecret } from './secrets.js';
import { checkTarget } from './targets.js';

/**
 * Spec §4.7: the Custom Channel Webhook URL replies are posted to, and the secret that signs them; and the answer
 * to a contact who writes HELP.
 */
export const publicSettings = (a: Account) => ({
  customChannelWebhookUrl: a.customChannelWebhookUrl,
  webhookSecret: a.webhookSecret,
  helpText: a.helpText || DEFAULT_HELP_TEXT,
});

export async function updateSettings(gw: Gateway, accountId: string, changes: Pick<Partial<Account>, 'customChannelWebhookUrl' | 'helpText'>): Promise<Account> {
  if (changes.customChannelWebhookUrl) await checkTarget(gw, changes.customChannelWebhookUrl, 'customChannelWebhookUrl');
  return gw.store.transact(async (tx) => tx.update<Account>('accounts', accountId, changes));
}

export async function rotateWebhookSecret(gw: Gateway, accountId: string): Promise<Account> {
  return gw.store.transact(async (tx) => tx.update<Account>('accounts', accountId, { webhookSecret: newWebhookSecret() }));
}

/** What the receiver did with a test event: its HTTP status, or why there was none. */
export interface WebhookTestResult {
  url: string;
  status: number | null;
  ok: boolean;
  error: string | null;
  durationMs: number;
  webhookId: string;
}

/**
 * Posts one `test` event to the account's Custom Channel Webhook URL now, signed, timed out and restricted as
 * deliveries are, so a receiver that passes it will pass real replies. Nothing is stored or retried: the caller
 * sees the receiver's answer at once.
 */
export async function sendTestEvent(gw: Gateway, accountId: string): Promise<WebhookTestResult> {
  const account = await getAccount(gw.store, accountId);
  const url = account.customChannelWebhookUrl;
  if (!url) throw new ApiError(409, 'NO_WEBHOOK_URL', 'No Custom Channel Webhook URL is set: save one first');
  await checkTarget(gw, url, 'customChannelWebhookUrl');

  const webhookId = newId('dlv');
  const body = JSON.stringify({
    type: 'test',
    occurredAt: new Date().toISOString(),
    accountId,
    message: 'A test event from LeadChat: replies will arrive at this address, signed the same way.',
  });
  const started = Date.now();
  const result = (status: number | null, error: string | null) => ({ url, status, ok: error === null, error, durationMs: Date.now() - started, webhookId });
  try {
    const res = await postSigned(gw, url, { id: webhookId, type: 'test', body, secret: account.webhookSecret });
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return result(res.statusCode, ok ? null : `Receiver answered HTTP ${res.statusCode}`);
  } catch (err) {
    return result(null, noAnswer(gw, err));
  }
}
