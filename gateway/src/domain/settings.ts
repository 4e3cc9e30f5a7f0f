import type { Gateway } from '../context.js';
import { audit, changedKeys, type AuditBy } from './audit-log.js';
import { builtInAwayNotice, builtInHandoffNotice, DEFAULT_HELP_TEXT } from './texts.js';
import { BUSINESS_HOURS, parseSendingWindow, sameWindow } from './sending-window.js';
import { getAccount, type Account } from './accounts.js';
import { previousSecretExpiresAt, rotated } from './signing-secrets.js';
import { checkTarget } from './targets.js';
import { DEFAULT_REMINDER_AFTER, parseReminderAfter, reminderAfter } from './handoff-waits.js';
import { newJob } from './job-kinds.js';
import type { Tx } from '../store/store.js';
import { botReplyLimitOf } from './bot-reply-limit.js';
import { hoursChanged } from './hours-changes.js';
import type { settings } from '../contract/account.js';
import type { Answer } from '../contract/shared.js';

/**
 * Spec §4.7: the Custom Channel Webhook URL replies are posted to, and the secret that signs them; the answer to a
 * contact who writes HELP; who a hand-off assigns its conversation to, what the contact is told then, and how long they
 * may wait for a person before the team is reminded; how many answers the bot gives a conversation in an hour before
 * the team takes it; when the team works (business hours) and what a contact is told out of them; the country of the
 * phone numbers the account writes without a country code; and the language of the gateway's own words.
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
  businessHours: a.businessHours ?? null,
  awayMessage: a.awayMessage ?? null,
  defaultAwayMessage: builtInAwayNotice(a.language),
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
    | 'awayMessage'
  > & { businessHours?: object | null },
  by?: AuditBy,
): Promise<Account> {
  if (changes.customChannelWebhookUrl)
    await checkTarget(gw, changes.customChannelWebhookUrl, 'customChannelWebhookUrl');
  const reminder =
    changes.handoffReminderAfter === undefined
      ? {}
      : { handoffReminderAfter: parseReminderAfter(changes.handoffReminderAfter) };
  // Checked as a campaign's sending window is, its refusals naming businessHours.start and the like.
  const { businessHours: asked, ...rest } = changes;
  const hours =
    asked === undefined ? {} : { businessHours: asked && parseSendingWindow(asked, undefined, BUSINESS_HOURS) };
  return gw.store.transact(async (tx) => {
    // Every open inbox says whether the team is out, and whether reminders wait: told at once of new ones.
    if (asked !== undefined || changes.handoffReminderAfter !== undefined) hoursChanged(tx, accountId);
    const before = await getAccount(tx, accountId);
    const patch: Partial<Account> = { ...rest, ...reminder, ...hours };
    if (remindersRetimed(before, { ...before, ...patch })) patch.remindersRetimed = await retimeReminders(tx, before);
    const after = await tx.update<Account>('accounts', accountId, patch);
    // The custom channel's webhook URL is where replies go: its change is an entry of its own.
    const { customChannelWebhookUrl: url, ...others } = changes;
    const keys = changedKeys(before, after, Object.keys(others) as Array<keyof Account & string>);
    if (keys.length) await audit(tx, by, 'settings.changed', null, { keys });
    if (url !== undefined && changedKeys(before, after, ['customChannelWebhookUrl']).length)
      await audit(tx, by, 'custom_channel.webhook_url_set', null, { cleared: url === null });
    return after;
  });
}

/** Whether the change holds for the waits under way: a new reminder (or none), or new business hours. */
const remindersRetimed = (before: Account, after: Account) =>
  reminderAfter(before) !== reminderAfter(after) ||
  !sameWindow(before.businessHours ?? null, after.businessHours ?? null);

/**
 * The waits' reminders timed anew under the account's new settings, by a job of their own (a big team has many); the
 * change's version, for the account to keep. A walk queued for an earlier change goes, and one under way gives way.
 */
async function retimeReminders(tx: Tx, before: Account): Promise<number> {
  const previous = before.remindersRetimed ?? 0;
  const version = previous + 1;
  await tx.cancelJobs(handoffRemindersKey(before.id, previous));
  await tx.enqueue(
    newJob(
      'handoff_reminders',
      { accountId: before.id, version },
      { key: handoffRemindersKey(before.id, version), accountId: before.id },
    ),
  );
  return version;
}

const handoffRemindersKey = (accountId: string, version: number) => `handoff_reminders:${accountId}:${version}`;

/** A new signing secret; the one it replaces still signs beside it for a day (see signing-secrets). */
export async function rotateWebhookSecret(gw: Gateway, accountId: string, by?: AuditBy): Promise<Account> {
  return gw.store.transact(async (tx) => {
    const after = await tx.update<Account>('accounts', accountId, rotated(await getAccount(tx, accountId)));
    await audit(tx, by, 'webhook_secret.rotated', null);
    return after;
  });
}
