import { z } from 'zod';
import { CAMPAIGN_CHANNELS, CAMPAIGN_STATUSES, FUNNEL_STEPS } from '../api-contract.js';
import { contact } from './contacts.js';
import { timestamp, weeklyHours } from './shared.js';

const templateParams = z.array(z.string());

/** A count for each of these names. */
const counts = <K extends string>(names: readonly K[]) =>
  Object.fromEntries(names.map((name) => [name, z.number().int().min(0)])) as Record<K, z.ZodNumber>;

export const campaign = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(['combined', 'outgoing', 'incoming']),
    language: z.string(),
    listId: z
      .string()
      .nullable()
      .describe('The list it messages; null when it has none (an archived campaign whose list was deleted)'),
    channel: z.enum(CAMPAIGN_CHANNELS),
    customChannel: z.string().nullable().describe('The custom channel\'s label, for channel "custom"'),
    openingTemplate: z.string().nullable().describe('WhatsApp: the approved template the opening message goes out as'),
    openingTemplateParams: templateParams,
    reengagementTemplate: z
      .string()
      .nullable()
      .describe('WhatsApp: the template sent instead of free text outside the 24-hour window'),
    reengagementTemplateParams: templateParams,
    templateLanguage: z.string().nullable(),
    openingMessage: z.string().nullable(),
    triggerOnNewContacts: z.boolean(),
    status: z
      .enum(CAMPAIGN_STATUSES)
      .describe(
        'archived: paused and left out of GET /v1/campaigns (unless asked for), and it holds no list; PATCH status paused or draft brings it back',
      ),
    sendRate: z.string().describe('The pace of queued opening messages, e.g. "30/m"'),
    sendingWindow: weeklyHours(
      "The days of the week, in the window's time zone, it opens on, Monday first; null: every day",
    ).nullable(),
    followUps: z.object({ enabled: z.boolean(), steps: z.array(z.object({ after: z.string(), body: z.string() })) }),
    bot: z.object({
      active: z.boolean(),
      instructions: z.string(),
      companyInfo: z.string(),
      faqs: z.array(z.object({ question: z.string(), answer: z.string() })),
      resources: z.array(z.string()),
      goal: z.string(),
      handoffMessage: z.string().nullable().optional(),
    }),
    version: z
      .number()
      .int()
      .min(1)
      .describe(
        'Counts the changes: 1 when created, one more with each. The ETag header of GET, POST and PATCH carries it ("3"), for If-Match',
      ),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Campaign' });
export type CampaignAnswer = z.output<typeof campaign>;

/** Why a contact of a campaign's list cannot be reached. */
export const UNREACHABLE_REASONS = [
  'no_external_id',
  'no_phone',
  'opted_out',
  'outside_whatsapp_window',
  'no_first_message',
  'outside_meta_window',
] as const;

/** GET /v1/campaigns/{id}: the campaign, with the contacts of its list it could not reach, by reason. */
export const campaignWithReach = campaign
  .extend({ unreachable: z.object({ total: z.number().int(), byReason: z.object(counts(UNREACHABLE_REASONS)) }) })
  .meta({ id: 'CampaignWithReach' });

/** GET /v1/campaigns/{id}/unreachable: one contact the campaign could not reach, and why. */
export const unreachableContact = z
  .object({
    reason: z.enum(UNREACHABLE_REASONS),
    contactId: z.string(),
    contact: contact.nullable().describe('The contact as it is now; null once it was deleted'),
  })
  .meta({ id: 'UnreachableContact' });

/** POST /v1/campaigns/{id}/reach-existing. */
export const reachExisting = z.object({
  queued: z.number().int().min(0).describe('Contacts given an opening message now'),
  unreachable: z.record(z.string(), z.number().int()).describe('Contacts that cannot be reached, by reason'),
});

const openingCost = {
  price: z
    .number()
    .describe(
      'Credits one opening message costs, as it reads with no contact field filled in; 0 when the account is not charged',
    ),
  balance: z.number().describe('The credits the account has'),
  charged: z
    .boolean()
    .describe('Whether the account pays for its messages (a sub-account, from credits its agency grants)'),
};

/** POST /v1/campaigns/opening-price. */
export const openingPrice = z.object(openingCost);

/** GET /v1/campaigns/{id}/openings. */
export const campaignOpenings = z.object({
  campaignId: z.string(),
  ...openingCost,
  failed: z.object({
    count: z
      .number()
      .int()
      .min(0)
      .describe('Opening messages of the campaign that are failed now (counted up to 1,000)'),
    more: z.boolean().describe('More than 1,000 are failed'),
    byCode: z
      .record(z.string(), z.number().int())
      .describe("The same, by error code: INSUFFICIENT_CREDITS, NO_RECEIVER, or the provider's own"),
  }),
});

/** GET /v1/campaigns/{id}/preview. */
export const openingPreview = z.object({
  campaignId: z.string(),
  contactId: z.string(),
  channel: z.enum(CAMPAIGN_CHANNELS),
  customChannel: z.string().nullable(),
  template: z.object({ name: z.string(), language: z.string(), params: z.array(z.string()) }).nullable(),
  to: z
    .string()
    .nullable()
    .describe('Where it would go: the phone number or the id on the channel; null when the contact has none'),
  body: z.string(),
});

const stepCounts = counts(FUNNEL_STEPS);

/** GET /v1/campaigns/{id}/funnel. */
export const funnel = z
  .object({
    campaignId: z.string(),
    from: z.string(),
    to: z.string(),
    timezone: z.string(),
    totals: z.object(stepCounts),
    days: z.array(z.object({ date: z.string(), ...stepCounts })),
  })
  .meta({ id: 'Funnel' });
export type FunnelAnswer = z.output<typeof funnel>;
