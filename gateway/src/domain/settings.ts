import type { Gateway } from '../context.js';
import { builtInHandoffNotice, DEFAULT_HELP_TEXT } from './texts.js';
import { getAccount, type Account } from './accounts.js';
import { previousSecretExpiresAt, rotated } from './signing-secrets.js';
import { checkTarget } from './targets.js';
import { DEFAULT_REMINDER_AFTER, parseReminderAfter } from './handoff-waits.js';
import { botReplyLimitOf } from './bot-reply-limit.js';
import type { settings } from '../contract/account.js';
import type { Answer } from '../contract/shared.js';

/**
 * Spec §4.7: the Custom Channel Webhook URL replies are posted to, and the secret that signs them; the answer
 * to a contact who writes HELP; who a hand-off assigns its conversation to, what the contact is told then, and how
 * long they may wait for a person before the team is reminded; how many answers the bot gives a conversation in an
 * hour before the team takes it; the country of the phone numbers the account writes without a country code; and the language of the gateway's own words.
 */
export const publicSettings = (a: Account): Answer<typeof settings> => ({
  customChannelWebhookUrl: a.customChannelWebhookUrl,
  webhookSecret: a.webhookSecret,
  previousSecretExpiresAt: previousSecretExpiresAt(a),
  helpText: a.helpText || DEFAULT_HELP_TEXT,
  handoffAssignment: a.handoffAssignment ?? 'none',
  handoffReminderAfter: a.handoffReminderAfter === undefined ? DEFAULT_REMINDER_AFTER : a.handoffReminderAfter,
  botReplyLimit: botReplyLimitOf(a),
  defaultCountry: a.defaultCountry ?? null,
  handoffMessage: a.handoffMessage ?? null,
  defaultHandoffMessage: builtInHandoffNotice(a.language),
  language: a.language ?? 'en',
});

export async function updateSettings(
  gw: Gateway,
  accountId: string,
  changes: Pick<
    Partial<Account>,
    | 'customChannelWebhookUrl'
    | 'helpText'
    | 'handoffAssignment'
    | 'handoffReminderAfter'
    | 'botReplyLimit'
    | 'defaultCountry'
    | 'handoffMessage'
    | 'language'
  >,
): Promise<Account> {
  if (changes.customChannelWebhookUrl)
    await checkTarget(gw, changes.customChannelWebhookUrl, 'customChannelWebhookUrl');
  const reminder =
    changes.handoffReminderAfter === undefined
      ? {}
      : { handoffReminderAfter: parseReminderAfter(changes.handoffReminderAfter) };
  return gw.store.transact(async (tx) => tx.update<Account>('accounts', accountId, { ...changes, ...reminder }));
}

/** A new signing secret; the one it replaces still signs beside it for a day (see signing-secrets). */
export async function rotateWebhookSecret(gw: Gateway, accountId: string): Promise<Account> {
  return gw.store.transact(async (tx) =>
    tx.update<Account>('accounts', accountId, rotated(await getAccount(tx, accountId))),
  );
}
