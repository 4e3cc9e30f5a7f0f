import { z } from 'zod';
import { success, timestamp } from './shared.js';

const credits = (description: string) => z.number().describe(description);

export const autoRecharge = z
  .object({ enabled: z.boolean(), threshold: z.number(), amount: z.number(), pending: z.boolean().describe('A recharge was asked for and not yet granted') })
  .nullable();

/** GET /v1/credits, and GET /v1/subaccounts/{id}/credits: the balance and its history, newest first. */
export const creditsAnswer = z
  .object({
    balance: credits('Credits left'),
    autoRecharge: autoRecharge.optional().describe('A sub-account\'s rule'),
    prices: z.object({ botReply: z.number(), smsSegment: z.number(), whatsapp: z.number() }).optional().describe('A sub-account: what its messages cost'),
    canSend: z.boolean().optional().describe('A sub-account: whether the balance pays for the cheapest message'),
    agency: z.object({ name: z.string(), email: z.string() }).nullable().optional().describe('A sub-account: the agency that grants its credits'),
    transactions: z.array(
      z.object({
        id: z.string(),
        kind: z.enum(['grant', 'usage']),
        amount: z.number(),
        balance: z.number(),
        description: z.string().nullable(),
        messageId: z.string().nullable(),
        createdAt: timestamp,
      }),
    ),
  })
  .meta({ id: 'Credits' });
export type CreditsAnswer = z.output<typeof creditsAnswer>;

/** POST /v1/subaccounts/credits (spec §4.6). */
export const grant = z.object({ success, sub_account_id: z.string(), credits_added: z.number(), new_balance: z.number() });

/** PUT /v1/subaccounts/auto-recharge. */
export const autoRechargeAnswer = z.object({ sub_account_id: z.string(), balance: z.number(), autoRecharge });

export const subAccount = z
  .object({ id: z.string(), name: z.string(), email: z.string(), balance: z.number(), autoRecharge, createdAt: timestamp })
  .meta({ id: 'SubAccount' });
