/**
 * The answers of /v1 the console reads, as the contract's schemas type them (contract/*.ts): the routes answer by
 * these schemas and the test suite checks every answer against them, so the console cannot drift from what the API
 * says. Types only: `import type` keeps the schemas, and zod, out of the browser's bundle.
 */
import type { z } from 'zod';
import type {
  apiKey,
  channels,
  invitation,
  member,
  settings,
  webhook,
  webhookTestResult,
} from '../../contract/account.js';
import type { botSettings, botTest, unanswered } from '../../contract/bot.js';
import type {
  campaign,
  campaignOpenings,
  campaignWithReach,
  funnel,
  openingPreview,
  openingPrice,
  reachExisting,
  unreachableContact,
} from '../../contract/campaigns.js';
import type { contact, listContact } from '../../contract/contacts.js';
import type { creditEntry, creditsAnswer, lowBalanceAnswer, subAccount } from '../../contract/credits.js';
import type { importAnswer, list, listAddition } from '../../contract/lists.js';
import type { conversation, message, messageWithDeliveries, retryReport } from '../../contract/messages.js';
import type { auditEntry } from '../../contract/audit-log.js';
import type { note } from '../../contract/notes.js';
import type { renderedSavedReply, savedReply } from '../../contract/saved-replies.js';
import type { Answer, page } from '../../contract/shared.js';

/** A page of any list endpoint: `data`, and the cursor of the next page (null on the last). */
export type PageOf<T> = Answer<ReturnType<typeof page<z.ZodType<T>>>>;

export type Contact = Answer<typeof contact>;
/** A list's contact, with when it joined (GET /v1/lists/{id}/contacts). */
export type ListContact = Answer<typeof listContact>;
export type List = Answer<typeof list>;
/** POST /v1/lists/{id}/contacts. */
export type ListAddition = Answer<typeof listAddition>;
export type Import = Answer<typeof importAnswer>;

export type Conversation = Answer<typeof conversation>;
export type Message = Answer<typeof message>;
/** GET /v1/messages/{id}: the message with its deliveries and their attempts. */
export type MessageWithDeliveries = Answer<typeof messageWithDeliveries>;
export type RetryReport = Answer<typeof retryReport>;
/** A note of the team's on a conversation (GET /v1/conversations/{id}/notes). */
export type Note = Answer<typeof note>;
/** An entry of the account's audit log (GET /v1/audit-log). */
export type AuditEntry = Answer<typeof auditEntry>;
/** A reply the team saved (GET /v1/saved-replies). */
export type SavedReply = Answer<typeof savedReply>;
/** GET /v1/saved-replies/{id}?conversationId=: filled in for the conversation's contact. */
export type RenderedSavedReply = Answer<typeof renderedSavedReply>;

export type Campaign = Answer<typeof campaign>;
/** GET /v1/campaigns/{id}: the campaign, with the contacts of its list it could not reach. */
export type CampaignWithReach = Answer<typeof campaignWithReach>;
export type Unreachable = CampaignWithReach['unreachable'];
/** GET /v1/campaigns/{id}/unreachable: one contact the campaign could not reach, and why. */
export type UnreachableContact = Answer<typeof unreachableContact>;
/** POST /v1/campaigns/{id}/reach-existing. */
export type Reached = Answer<typeof reachExisting>;
export type OpeningPreview = Answer<typeof openingPreview>;
/** GET /v1/campaigns/{id}/openings. */
export type CampaignOpenings = Answer<typeof campaignOpenings>;
/** POST /v1/campaigns/opening-price. */
export type OpeningPrice = Answer<typeof openingPrice>;
export type Funnel = Answer<typeof funnel>;
/** POST /v1/campaigns/{id}/bot/test. */
export type BotTest = Answer<typeof botTest>;
/** GET /v1/campaigns/{id}/unanswered. */
export type Unanswered = Answer<typeof unanswered>;

export type Settings = Answer<typeof settings>;
export type BotSettings = Answer<typeof botSettings>;
export type WebhookTestResult = Answer<typeof webhookTestResult>;
/** A webhook subscription (GET /v1/webhooks), with its status and its receiver's health. */
export type Webhook = Answer<typeof webhook>;
export type ApiKey = Answer<typeof apiKey>;
export type Channels = Answer<typeof channels>;

/** A member of the account's team (GET /v1/members); the owner is the first. */
export type TeamMember = Answer<typeof member>;
/** A new member, or a new link for one: the link is shown this once. */
export type Invitation = Answer<typeof invitation>;

export type Credits = Answer<typeof creditsAnswer>;
/** GET /v1/credits/history: one entry. */
export type CreditEntry = Answer<typeof creditEntry>;
/** PUT /v1/credits/low-balance. */
export type LowBalance = Answer<typeof lowBalanceAnswer>;
export type SubAccount = Answer<typeof subAccount>;
export type AutoRechargeRule = NonNullable<SubAccount['autoRecharge']>;
