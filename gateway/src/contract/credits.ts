import { z } from 'zod';
import { nullableTimestamp, success, timestamp } from './shared.js';

const credits = (description: string) => z.number().describe(description);

export const autoRecharge = z
  .object({
    enabled: z.boolean(),
    threshold: z.number(),
    amount: z.number(),
    pending: z
      .boolean()
      .describe(
        'A recharge was asked for (auto_recharge event) and the balance is not yet back at the threshold; saving the rule asks again',
      ),
  })
  .nullable();

/** What a message that paid is: an opening, a follow-up, a bot reply, a team reply, a message sent through the API. */
export const MESSAGE_KINDS = ['campaign', 'follow_up', 'bot', 'team', 'api'] as const;

/** GET /v1/credits/history: one entry, newest first; GET /v1/credits lists them all. */
export const creditEntry = z
  .object({
    id: z.string(),
    kind: z
      .enum(['grant', 'recharge', 'usage', 'refund', 'granted', 'returned'])
      .describe(
        "grant: credits an agency granted; recharge: a grant answering the sub-account's auto-recharge request; usage: what a message cost; refund: what a message paid, given back because the gateway withheld it before any channel took it (the contact opted out meanwhile); granted: in an agency's own history, credits it granted to one of its sub-accounts (subAccount); returned: in an agency's own history, the unspent balance of a sub-account it deleted (subAccount), come back to it",
      ),
    amount: credits('Credits added or given back (positive), or spent or granted to a sub-account (negative)'),
    balance: z
      .number()
      .nullable()
      .describe("The balance after it; null on a granted or returned line: neither changes the agency's own balance"),
    description: z.string().nullable(),
    messageId: z.string().nullable().describe('usage: the message it paid for; refund: the message it gave back for'),
    messageKind: z
      .enum(MESSAGE_KINDS)
      .nullable()
      .describe('usage and refund: who wrote the message: campaign (an opening), follow_up, bot, team or api'),
    channel: z
      .string()
      .nullable()
      .describe("usage and refund: the conversation's channel: sms, whatsapp, messenger, instagram or custom:<label>"),
    subAccount: z
      .object({
        id: z.string(),
        name: z.string().nullable().describe('Its name now; null once it is gone'),
      })
      .nullable()
      .describe('granted: the sub-account the agency granted the credits to; returned: the deleted sub-account'),
    createdAt: timestamp,
  })
  .meta({ id: 'CreditEntry' });

/** GET /v1/credits, and GET /v1/subaccounts/{id}/credits: the balance and its history, newest first. */
export const creditsAnswer = z
  .object({
    balance: credits('Credits left'),
    lowBalanceThreshold: z
      .number()
      .nullable()
      .describe('The balance under which the team is warned (PUT /v1/credits/low-balance); null: none set'),
    lowBalance: z
      .boolean()
      .describe('A sub-account whose balance is under its lowBalanceThreshold: the console warns on every page'),
    autoRecharge: autoRecharge.optional().describe("A sub-account's rule"),
    prices: z
      .object({
        botReply: z.number(),
        smsSegment: z.number(),
        whatsapp: z.number(),
        messenger: z.number(),
        instagram: z.number(),
      })
      .optional()
      .describe('A sub-account: what its messages cost'),
    canSend: z.boolean().optional().describe('A sub-account: whether the balance pays for the cheapest message'),
    agency: z
      .object({ name: z.string(), email: z.string() })
      .nullable()
      .optional()
      .describe('A sub-account: the agency that grants its credits'),
    transactions: z
      .array(creditEntry)
      .optional()
      .describe(
        'The lines of GET /v1/credits/history, every one, newest first; left out with ?transactions=false (GET /v1/credits/history pages them)',
      ),
  })
  .meta({ id: 'Credits' });
export type CreditsAnswer = z.output<typeof creditsAnswer>;

/** PUT /v1/credits/low-balance. */
export const lowBalanceAnswer = z.object({
  balance: z.number(),
  lowBalanceThreshold: z.number().nullable(),
  lowBalance: z.boolean(),
});

/** POST /v1/subaccounts/credits (spec §4.6). */
export const grant = z.object({
  success,
  sub_account_id: z.string(),
  credits_added: z.number(),
  new_balance: z.number(),
});

/** PUT /v1/subaccounts/auto-recharge. */
export const autoRechargeAnswer = z.object({ sub_account_id: z.string(), balance: z.number(), autoRecharge });

export const subAccount = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    balance: z.number(),
    autoRecharge,
    createdAt: timestamp,
  })
  .meta({ id: 'SubAccount' });

/**
 * DELETE /v1/subaccounts/{id} and GET /v1/subaccounts/{id}/deletion (and the operator's DELETE
 * /admin/v1/accounts/{id}): an account's deletion, gone at once, its data removed in the background.
 */
export const accountDeletionAnswer = z
  .object({
    accountId: z.string().describe('The deleted account'),
    status: z.enum(['deleting', 'done']).describe('deleting: its data is being removed; done: all of it is gone'),
    startedAt: timestamp,
    finishedAt: nullableTimestamp.describe('When the last of its data went; null while deleting'),
    removed: z
      .record(z.string(), z.number())
      .describe(
        'What went so far, per collection of the store (contacts, messages, …; files: media files, jobs: jobs that waited)',
      ),
  })
  .meta({ id: 'AccountDeletion' });
