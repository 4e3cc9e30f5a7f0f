import type { z } from 'zod';
import {
  apiKey,
  channels,
  invitation,
  member,
  settings,
  webhook,
  webhookTestResult,
  webhookWithSecret,
} from '../contract/account.js';
import { botSettings, botTest, unanswered } from '../contract/bot.js';
import {
  campaign,
  campaignOpenings,
  campaignWithReach,
  funnel,
  openingPreview,
  openingPrice,
  reachExisting,
  unreachableContact,
} from '../contract/campaigns.js';
import { contactExport } from '../contract/contact-export.js';
import { contact, listContact } from '../contract/contacts.js';
import {
  autoRechargeAnswer,
  creditEntry,
  creditsAnswer,
  grant,
  lowBalanceAnswer,
  subAccount,
  accountDeletionAnswer,
} from '../contract/credits.js';
import { importAnswer, list, listAddition } from '../contract/lists.js';
import {
  botState,
  conversation,
  incomingReceived,
  labelList,
  message,
  messageWithDeliveries,
  received,
  retryReport,
  sent,
} from '../contract/messages.js';
import { auditEntry } from '../contract/audit-log.js';
import { note } from '../contract/notes.js';
import { renderedSavedReply, savedReply } from '../contract/saved-replies.js';
import { page } from '../contract/shared.js';
import * as schemas from './schemas.js';

/**
 * Every operation of /v1 as the OpenAPI document describes it (see openapi.ts): its id, tag, words, request and
 * each answer, success and error. The errors every operation of its kind can answer (authentication, rate limit,
 * the store, a body's format, a role) are added there; `errors` lists the operation's own codes by status.
 */
export interface Operation {
  id: string;
  tag: Tag;
  summary: string;
  description?: string;
  body?: z.ZodType;
  example?: unknown;
  query?: z.ZodType;
  /** Each success status with its body; null: no body. */
  answers: Partial<Record<200 | 201 | 202 | 204 | 206, z.ZodType | null | 'file' | 'csv'>>;
  errors?: Partial<Record<400 | 403 | 404 | 409 | 410 | 412 | 416 | 422, string[]>>;
  /** Headers of the success answer. */
  headers?: Array<
    'Location' | 'Idempotent-Replayed' | 'ETag' | 'Accept-Ranges' | 'Content-Range' | 'Content-Disposition'
  >;
  /** Request headers the operation reads. */
  takes?: Array<'Idempotency-Key' | 'If-Match' | 'Range' | 'If-Range'>;
  /** The API key in x-api-key only (not Authorization: Bearer, not ?apiKey=). */
  keyInHeader?: true;
  /** Paged: `limit` and `cursor` in the query. */
  paged?: true;
}

export const TAGS = {
  Contacts: 'Contacts: the people an account talks to, one per phone number, email or external ID',
  Lists: 'Lists of contacts; a Live campaign linked to a list messages each contact added to it',
  Imports: 'Importing many contacts into a list at once, as a job',
  Campaigns: 'Campaigns: the opening message, follow-ups and the bot of a funnel',
  Conversations: 'Conversations: one per contact and channel, as the team inbox shows them',
  'Saved replies': "The team's saved replies, put in a conversation's reply box filled in for its contact",
  Messages: 'Messages in and out, and the custom channels that bring any external chat in',
  Channels: 'The built-in channels: Twilio (SMS, WhatsApp), WhatsApp Cloud API, Messenger, Instagram',
  Team: "The account's team: its owner, admins and agents",
  Credits: 'Credits, and what an agency grants its sub-accounts',
  Settings: "The account's settings, bot provider and API key",
  Webhooks: 'Subscriptions of URLs to events, signed as Standard Webhooks',
  'Audit log': "Who changed what in the account, and when: the owner's and admins'",
} as const;
export type Tag = keyof typeof TAGS;

const notFound = (...things: string[]) => ({ 404: things.map((t) => `${t}_NOT_FOUND`) });
/** The codes of a campaign's own rules, beyond its fields' shapes. */
const CAMPAIGN_RULES = [
  'INVALID_DURATION',
  'INVALID_RATE',
  'INVALID_SENDING_WINDOW',
  'CAMPAIGN_CANNOT_SEND',
  'NO_FIRST_MESSAGE',
  'UNKNOWN_TEMPLATE_FIELD',
];

/** The refusals of an Idempotency-Key (domain/idempotency.ts), with the operation's own. */
const keyed = (errors: NonNullable<Operation['errors']> = {}): Operation['errors'] => ({
  ...errors,
  400: [...(errors[400] ?? []), 'INVALID_IDEMPOTENCY_KEY'],
  409: [...(errors[409] ?? []), 'IDEMPOTENCY_IN_FLIGHT'],
  422: [...(errors[422] ?? []), 'IDEMPOTENCY_KEY_REUSED'],
});

export const OPERATIONS: Record<string, Partial<Record<'get' | 'post' | 'put' | 'patch' | 'delete', Operation>>> = {
  '/contacts': {
    post: {
      id: 'createContact',
      tag: 'Contacts',
      summary: 'Create a contact',
      description:
        'An existing phone, or external ID, answers the existing contact with 200; an external ID another contact holds is 409 EXTERNAL_ID_TAKEN.',
      body: schemas.contactCreate,
      answers: { 201: contact, 200: contact },
      errors: { 400: ['INVALID_PHONE', 'INVALID_EMAIL'], 409: ['EXTERNAL_ID_TAKEN'] },
    },
    get: {
      id: 'findContacts',
      tag: 'Contacts',
      summary: 'Find a contact, or search contacts',
      description:
        "By phoneNumber or email: that contact (404 CONTACT_NOT_FOUND). By q: a page of contacts, by the start of a name's word or of the email, the last digits of the phone, or an external ID.",
      query: schemas.contactLookup,
      answers: { 200: contact.or(page(contact)) },
      errors: { 400: ['INVALID_PHONE', 'INVALID_EMAIL', 'INVALID_CURSOR'], ...notFound('CONTACT') },
    },
  },
  '/contacts/{id}': {
    get: {
      id: 'getContact',
      tag: 'Contacts',
      summary: 'Get a contact',
      answers: { 200: contact },
      errors: notFound('CONTACT'),
    },
    patch: {
      id: 'updateContact',
      tag: 'Contacts',
      summary: 'Correct a contact',
      description:
        "Names, phone (read under the account's default country), email and custom fields (merged; null removes a key); an absent field stays, null clears it. " +
        'A phone or email another contact holds is 409 CONTACT_EXISTS with error.contactId naming that contact (merge them instead).',
      body: schemas.contactUpdate,
      answers: { 200: contact },
      errors: { 400: ['INVALID_PHONE', 'INVALID_EMAIL'], ...notFound('CONTACT'), 409: ['CONTACT_EXISTS'] },
    },
    delete: {
      id: 'eraseContact',
      tag: 'Contacts',
      summary: 'Erase a contact',
      description:
        "GDPR erasure: the contact, its conversations, messages, the team's notes on them, files, list memberships, search entries, waiting jobs, webhook deliveries, the answers kept for an Idempotency-Key naming it and the provider's entries naming it that could never be processed are gone; " +
        'its messages a provider brought before the erasure and still to be processed are dropped, a STOP among them still kept as its opt-out; ' +
        'the rows naming it of imports sent before the erasure and not applied yet are rejected (CONTACT_ERASED); ' +
        'campaign counts stay, naming nobody. A contact who opted out stays opted out: its addresses are kept as keyed hashes, so the same phone, email or ID comes back opted out. Owner and admins.',
      answers: { 204: null },
      errors: notFound('CONTACT'),
    },
  },
  '/contacts/{id}/merge': {
    post: {
      id: 'mergeContacts',
      tag: 'Contacts',
      summary: 'Merge a duplicate into this contact',
      description:
        "The other contact's conversations, messages, the team's notes, lists and external IDs move to this one (a conversation on a channel this one has one on is folded into it, its notes with it); " +
        "this contact keeps its names, phone, email and custom fields and takes the other's where it has none; an opt-out of either holds. The other is gone. Owner and admins. " +
        'A merge that would leave the contact more than 50 custom fields or 20 external IDs is 409 MERGE_TOO_LARGE, naming each limit in error.fields, and nothing moves.',
      body: schemas.contactMerge,
      answers: { 200: contact },
      errors: { 400: ['SAME_CONTACT'], ...notFound('CONTACT'), 409: ['MERGE_TOO_LARGE'] },
    },
  },
  '/contacts/{id}/export': {
    get: {
      id: 'exportContact',
      tag: 'Contacts',
      summary: 'Everything held about a contact',
      description:
        "One JSON document (a GDPR access request): the contact, its conversations and messages, the team's notes on them, its files as links, its lists, the rows of import reports naming it, what its campaigns recorded about it and the questions their bots could not answer, its consent, and the webhook deliveries of events about it. Owner and admins.",
      answers: { 200: contactExport },
      headers: ['Content-Disposition'],
      errors: notFound('CONTACT'),
    },
  },
  '/contacts/{id}/messages': {
    get: {
      id: 'listContactMessages',
      tag: 'Messages',
      summary: "A contact's messages, oldest first",
      description:
        "A contact's messages, oldest first; ?order=desc: newest first, a thread's latest messages in one page and those " +
        'before them in the next; ?conversationId: only those of one conversation of theirs.',
      paged: true,
      query: schemas.contactMessagesQuery,
      answers: { 200: page(message) },
      errors: notFound('CONTACT', 'CONVERSATION'),
    },
    post: {
      id: 'replyToContact',
      tag: 'Messages',
      summary: "A team member's reply",
      description:
        "Sent on the conversation's channel (the bot stops there); 409 CONTACT_UNREACHABLE when the contact has no address there; " +
        '400 VALIDATION_ERROR naming body when it is longer than the channel takes in one message (SMS 1,600 characters, WhatsApp 4,096, Messenger 2,000, Instagram 1,000 bytes). ' +
        "With expectedAssigneeId, only if the conversation is still theirs or the caller's: 409 ASSIGNEE_CHANGED, naming who has it now, when someone else took it meanwhile. " +
        'The same Idempotency-Key with the same body answers the first reply again (Idempotent-Replayed: true) and sends nothing.',
      body: schemas.teamMessage,
      takes: ['Idempotency-Key'],
      headers: ['Idempotent-Replayed'],
      answers: { 201: message },
      errors: {
        400: ['INVALID_IDEMPOTENCY_KEY'],
        ...notFound('CONTACT', 'CONVERSATION'),
        409: [
          'CONTACT_UNREACHABLE',
          'CONTACT_OPTED_OUT',
          'INSUFFICIENT_CREDITS',
          'OUTSIDE_24H_WINDOW',
          'NO_CONVERSATION',
          'NO_RECEIVER',
          'ASSIGNEE_CHANGED',
          'IDEMPOTENCY_IN_FLIGHT',
        ],
        422: ['IDEMPOTENCY_KEY_REUSED'],
      },
    },
  },
  '/contacts/{id}/bot': {
    post: {
      id: 'setContactBot',
      tag: 'Contacts',
      summary: 'Hand the contact to a person, or give it back to the bot',
      body: schemas.botState,
      answers: { 200: botState },
      errors: notFound('CONTACT'),
    },
  },
  '/lists': {
    post: {
      id: 'createList',
      tag: 'Lists',
      summary: 'Create a list',
      description:
        'The same Idempotency-Key with the same body answers the first creation again (Idempotent-Replayed: true) and creates nothing.',
      body: schemas.listCreate,
      takes: ['Idempotency-Key'],
      headers: ['Idempotent-Replayed'],
      answers: { 201: list },
      errors: keyed(),
    },
    get: {
      id: 'listLists',
      tag: 'Lists',
      summary: 'The lists, oldest first',
      description: 'By q: only those whose name holds it.',
      paged: true,
      query: schemas.namedQuery,
      answers: { 200: page(list) },
    },
  },
  '/lists/{listId}': {
    get: { id: 'getList', tag: 'Lists', summary: 'Get a list', answers: { 200: list }, errors: notFound('LIST') },
    patch: {
      id: 'renameList',
      tag: 'Lists',
      summary: 'Rename a list',
      description:
        "The name, held to the rules of a new list's (1 to 200 characters, not blank, trimmed); names need not be unique. GET /lists?q= finds it by its new name.",
      body: schemas.listUpdate,
      answers: { 200: list },
      errors: notFound('LIST'),
    },
    delete: {
      id: 'deleteList',
      tag: 'Lists',
      summary: 'Delete a list',
      description:
        "The list goes, with its contacts' places in it and its import reports (GET /imports/{id} of one is then 404); the contacts stay. " +
        '409 LIST_HAS_CAMPAIGNS, naming the campaigns, while a campaign that is not archived is linked to it: link each to another list first (listId of PATCH /campaigns/{id}), or archive it. ' +
        'An archived campaign linked to it is left with no list (listId null). ' +
        '409 LIST_IMPORT_RUNNING while an import into it has rows to apply: wait until it is done.',
      answers: { 204: null },
      errors: { ...notFound('LIST'), 409: ['LIST_HAS_CAMPAIGNS', 'LIST_IMPORT_RUNNING'] },
    },
  },
  '/lists/{listId}/contacts': {
    post: {
      id: 'addContactToList',
      tag: 'Lists',
      summary: 'Add a contact to a list',
      description:
        'A Live campaign linked to the list sends the contact its opening message. 201 when added, 200 when the contact was on the list already.',
      body: schemas.listAdd,
      answers: { 201: listAddition, 200: listAddition },
      errors: { 400: ['INVALID_DURATION'], ...notFound('LIST', 'CONTACT') },
    },
    get: {
      id: 'listListContacts',
      tag: 'Lists',
      summary: "A list's contacts, in the order they joined",
      paged: true,
      answers: { 200: page(listContact) },
      errors: notFound('LIST'),
    },
  },
  '/lists/{listId}/export': {
    get: {
      id: 'exportList',
      tag: 'Lists',
      summary: "A list's contacts as a CSV file",
      description:
        "UTF-8 with a BOM, CRLF line ends, a header row: Phone (E.164), First name, Last name, Email, a column `External ID (<label>)` per custom channel label and one per custom field the list's contacts hold, then Contact ID, Added to list and Opted out (yes or no), which an import leaves out. In the order the contacts joined; streamed as the list is read. A text cell starting with =, +, -, @, a tab or a carriage return (or with an apostrophe an import would read as a mark) gets an apostrophe before it, so that no spreadsheet runs it; an import takes it off again. Owner and admins.",
      answers: { 200: 'csv' },
      headers: ['Content-Disposition'],
      errors: notFound('LIST'),
    },
  },
  '/lists/{listId}/contacts/{contactId}': {
    delete: {
      id: 'removeContactFromList',
      tag: 'Lists',
      summary: 'Remove a contact from a list',
      description:
        'The contact stays; only its place in the list goes. 404 CONTACT_NOT_IN_LIST when it is not on the list.',
      answers: { 204: null },
      errors: { 404: ['LIST_NOT_FOUND', 'CONTACT_NOT_IN_LIST'] },
    },
  },
  '/lists/{listId}/imports': {
    post: {
      id: 'importContacts',
      tag: 'Imports',
      summary: 'Import contacts into a list',
      description:
        'A CSV or contact objects, run as a job: answers the import, whose progress GET /imports/{id} follows. ' +
        'The same Idempotency-Key with the same body answers the import as it was made (Idempotent-Replayed: true) and imports nothing.',
      body: schemas.importCreate,
      takes: ['Idempotency-Key'],
      answers: { 202: importAnswer },
      headers: ['Location', 'Idempotent-Replayed'],
      errors: keyed({
        400: [
          'INVALID_CSV',
          'MISSING_COLUMN',
          'DUPLICATE_COLUMN',
          'EMPTY_IMPORT',
          'TOO_MANY_ROWS',
          'MISSING_IDENTIFIER',
          'INVALID_PHONE',
          'INVALID_EMAIL',
          'INVALID_DURATION',
        ],
        ...notFound('LIST'),
      }),
    },
    get: {
      id: 'listImports',
      tag: 'Imports',
      summary: "A list's imports, newest first",
      paged: true,
      answers: { 200: page(importAnswer) },
      errors: notFound('LIST'),
    },
  },
  '/imports/{id}': {
    get: {
      id: 'getImport',
      tag: 'Imports',
      summary: 'Get an import',
      description:
        'Its progress, counts (unreachable: rows added that a Live campaign of the list cannot reach; warnings: rows added with a phone, an email or a name left out) and, by row, the rejected rows, the warnings with what was left out, and the repeated rows with the contact each was merged into (the first 1,000 of each).',
      answers: { 200: importAnswer },
      errors: notFound('IMPORT'),
    },
  },
  '/campaigns': {
    post: {
      id: 'createCampaign',
      tag: 'Campaigns',
      summary: 'Create a campaign',
      description:
        'The same Idempotency-Key with the same body answers the first creation again (Idempotent-Replayed: true) and creates nothing.',
      body: schemas.campaignCreate,
      takes: ['Idempotency-Key'],
      answers: { 201: campaign },
      headers: ['ETag', 'Idempotent-Replayed'],
      errors: {
        400: [...CAMPAIGN_RULES, 'INVALID_IDEMPOTENCY_KEY'],
        ...notFound('LIST'),
        409: ['IDEMPOTENCY_IN_FLIGHT'],
        422: ['IDEMPOTENCY_KEY_REUSED'],
      },
    },
    get: {
      id: 'listCampaigns',
      tag: 'Campaigns',
      summary: 'The campaigns, oldest first',
      description:
        'Every campaign but the archived ones. By q: only those whose name holds it; by status: only those in it (status=archived lists the archived ones).',
      paged: true,
      query: schemas.campaignListQuery,
      answers: { 200: page(campaign) },
    },
  },
  '/campaigns/{id}': {
    get: {
      id: 'getCampaign',
      tag: 'Campaigns',
      summary: 'Get a campaign',
      description:
        'With the contacts of its list it could not reach, by reason. Its ETag is its version, for If-Match on PATCH.',
      answers: { 200: campaignWithReach },
      headers: ['ETag'],
      errors: notFound('CAMPAIGN'),
    },
    patch: {
      id: 'updateCampaign',
      tag: 'Campaigns',
      summary: 'Change a campaign',
      description:
        'An absent field stays. With If-Match (the ETag of the version read), the change goes through only while the campaign is at that version: one changed since is 412 PRECONDITION_FAILED and nothing changes. Without it, the change goes through whatever the version. ' +
        'status archived archives it: it sends nothing and its bot answers nothing, as paused, it leaves GET /campaigns (unless asked for) and holds its list no more. ' +
        'An archived campaign is brought back by status paused or draft (with any other change in the same request); any other change of it is 409 CAMPAIGN_ARCHIVED.',
      body: schemas.campaignUpdate,
      answers: { 200: campaign },
      headers: ['ETag'],
      takes: ['If-Match'],
      errors: {
        400: [...CAMPAIGN_RULES, 'INVALID_IF_MATCH'],
        ...notFound('CAMPAIGN', 'LIST'),
        409: ['CAMPAIGN_ARCHIVED'],
        412: ['PRECONDITION_FAILED'],
      },
    },
  },
  '/campaigns/{id}/reach-existing': {
    post: {
      id: 'reachExistingContacts',
      tag: 'Campaigns',
      summary: "Message the contacts already on a Live campaign's list",
      description:
        'Each that has had no opening message from the campaign gets one, paced like new additions, each once however often this is called.',
      answers: { 202: reachExisting },
      errors: { ...notFound('CAMPAIGN'), 409: ['CAMPAIGN_NOT_LIVE', 'CAMPAIGN_WITHOUT_LIST'] },
    },
  },
  '/campaigns/{id}/bot/test': {
    post: {
      id: 'testCampaignBot',
      tag: 'Campaigns',
      summary: "Ask the campaign's bot a test question",
      description:
        "Its answer and its basis (the FAQs and resources it rests on, the FAQ bot's confidence); nothing is sent, stored or charged.",
      body: schemas.botTest,
      answers: { 200: botTest },
      errors: notFound('CAMPAIGN'),
    },
  },
  '/campaigns/opening-price': {
    post: {
      id: 'quoteOpeningPrice',
      tag: 'Campaigns',
      summary: 'What an opening message would cost',
      description:
        'For a campaign not saved yet (its form): the price of one opening message on the channel, with the balance that pays for them.',
      body: schemas.openingPriceQuote,
      answers: { 200: openingPrice },
    },
  },
  '/campaigns/{id}/openings': {
    get: {
      id: 'getCampaignOpenings',
      tag: 'Campaigns',
      summary: "What a campaign's opening messages cost, and those that failed",
      description:
        'The price of one opening and the balance that pays for them (before going Live), and how many are failed now, by error code.',
      answers: { 200: campaignOpenings },
      errors: notFound('CAMPAIGN'),
    },
  },
  '/campaigns/{id}/openings/retry-failed': {
    post: {
      id: 'retryFailedOpenings',
      tag: 'Campaigns',
      summary: "Retry a campaign's failed opening messages",
      description:
        "The oldest 100 a call go back to the campaign's queue, pending again: each goes at the campaign's pace, inside its sending window, after the checks any opening passes then (contact still on the list and not opted out, campaign Live, credits); one the queue does not send then fails again with the reason (e.g. CONTACT_LEFT_LIST). One that cannot go now either (no credits for it beside those queued before it that still wait, no receiver, contact off the list) stays failed and is reported.",
      answers: { 200: retryReport },
      errors: notFound('CAMPAIGN'),
    },
  },
  '/campaigns/{id}/unanswered': {
    get: {
      id: 'listUnansweredQuestions',
      tag: 'Campaigns',
      summary: "What the campaign's bot could not answer",
      description:
        'Its latest 1,000 questions handed off for want of an answer, grouped when they ask the same thing, largest groups first, each with the FAQ that answers it now if one does.',
      query: schemas.unansweredQuery,
      answers: { 200: unanswered },
      errors: notFound('CAMPAIGN'),
    },
  },
  '/campaigns/{id}/unreachable': {
    get: {
      id: 'listUnreachableContacts',
      tag: 'Campaigns',
      summary: 'The contacts the campaign could not reach',
      description:
        'Each contact of its list the campaign could not reach (no phone, no external ID, opted out …), with why, in the order they were found; `reason` keeps one reason. GET /campaigns/{id} counts them.',
      query: schemas.unreachableQuery,
      paged: true,
      answers: { 200: page(unreachableContact) },
      errors: notFound('CAMPAIGN'),
    },
  },
  '/campaigns/{id}/preview': {
    get: {
      id: 'previewOpening',
      tag: 'Campaigns',
      summary: "A campaign's opening message as a contact would get it",
      query: schemas.campaignPreview,
      answers: { 200: openingPreview },
      errors: notFound('CAMPAIGN', 'CONTACT'),
    },
  },
  '/campaigns/{id}/funnel': {
    get: {
      id: 'getCampaignFunnel',
      tag: 'Campaigns',
      summary: "A campaign's funnel",
      description:
        'Contacts added, opening sent, replied, handed off, opted out, goal reached, failed; in total and per day.',
      query: schemas.funnelQuery,
      answers: { 200: funnel },
      errors: notFound('CAMPAIGN'),
    },
  },
  '/conversations': {
    get: {
      id: 'listConversations',
      tag: 'Conversations',
      summary: 'Conversations, newest activity first',
      query: schemas.conversationQuery,
      answers: { 200: page(conversation) },
      errors: { 400: ['INVALID_CURSOR'], ...notFound('CONTACT', 'CAMPAIGN', 'MEMBER') },
    },
  },
  '/conversations/retry-failed': {
    post: {
      id: 'retryAllFailed',
      tag: 'Conversations',
      summary: 'Retry every failed message',
      description:
        "Every failed outgoing message of the conversations holding one (100 conversations a call), oldest first: a campaign's failed opening goes back to its campaign's queue (as POST /campaigns/{id}/openings/retry-failed puts it), any other goes again now.",
      answers: { 200: retryReport },
    },
  },
  '/conversations/{id}': {
    get: {
      id: 'getConversation',
      tag: 'Conversations',
      summary: 'Get a conversation',
      answers: { 200: conversation },
      errors: notFound('CONVERSATION'),
    },
  },
  '/conversations/{id}/retry-failed': {
    post: {
      id: 'retryConversationFailed',
      tag: 'Conversations',
      summary: "Retry a conversation's failed messages",
      description: 'Each goes again now, as POST /messages/{id}/retry sends it: a campaign opening too.',
      answers: { 200: retryReport },
      errors: notFound('CONVERSATION'),
    },
  },
  '/conversations/{id}/assign': {
    post: {
      id: 'assignConversation',
      tag: 'Conversations',
      summary: 'Assign a conversation',
      description:
        'To a member (or the owner; "me": the caller), or to nobody (null); 409 MEMBER_NOT_ACTIVE for an invitation not accepted. With expectedAssigneeId, only if the conversation is still theirs: 409 ASSIGNEE_CHANGED, naming who has it now, when someone took it meanwhile.',
      body: schemas.assignment,
      answers: { 200: conversation },
      errors: { ...notFound('CONVERSATION', 'MEMBER'), 409: ['MEMBER_NOT_ACTIVE', 'ASSIGNEE_CHANGED'] },
    },
  },
  '/conversations/{id}/snooze': {
    post: {
      id: 'snoozeConversation',
      tag: 'Conversations',
      summary: 'Snooze a conversation until a time',
      description:
        'Hidden from the inbox until `until` (snoozedUntil; GET /conversations?snoozed=true lists them), then back at the front of the inbox, its assignee (or the whole team) told and a snooze_ended event delivered. The contact writing wakes it at once (snooze_ended, reason contact_wrote). Snoozed again, the new time replaces the old. ' +
        '`until` must be in the future and at most 365 days ahead (400 VALIDATION_ERROR); a contact waiting for a reply from the team (waitingSince) is answered first: 409 CONTACT_WAITING; a contact who opted out: 409 CONTACT_OPTED_OUT.',
      body: schemas.snooze,
      answers: { 200: conversation },
      errors: { ...notFound('CONVERSATION'), 409: ['CONTACT_WAITING', 'CONTACT_OPTED_OUT'] },
    },
    delete: {
      id: 'wakeConversation',
      tag: 'Conversations',
      summary: 'Wake a snoozed conversation now',
      description:
        'Back in the inbox at once, where its last activity places it (snoozedUntil null); no event is delivered. A conversation not snoozed is answered as it is.',
      answers: { 200: conversation },
      errors: notFound('CONVERSATION'),
    },
  },
  '/conversations/{id}/labels': {
    post: {
      id: 'addConversationLabels',
      tag: 'Conversations',
      summary: 'Label a conversation',
      description:
        'Adds the labels the conversation lacks after its own ("Hot lead", "pricing"): each is trimmed, 1 to 40 characters, no control characters. Labels are one case aside, and a conversation keeps the spelling it was first given: one it carries already changes nothing and is no error. ' +
        'A conversation carries at most 20: more in all is 409 TOO_MANY_LABELS and nothing is added. A conversation_labeled event tells what was added, when anything was. GET /conversations?label= lists the conversations carrying one.',
      body: schemas.labelsAdd,
      answers: { 200: conversation },
      errors: { ...notFound('CONVERSATION'), 409: ['TOO_MANY_LABELS'] },
    },
  },
  '/conversations/{id}/labels/{label}': {
    delete: {
      id: 'removeConversationLabel',
      tag: 'Conversations',
      summary: 'Take a label off a conversation',
      description:
        'The label, URL-encoded (Hot%20lead), case aside. A label the conversation does not carry changes nothing and is answered as the conversation is, so that a workflow removes one wherever it is without a check first. A conversation_labeled event tells what was removed, when anything was.',
      answers: { 200: conversation },
      errors: notFound('CONVERSATION'),
    },
  },
  '/conversations/{id}/read': {
    post: {
      id: 'markConversationRead',
      tag: 'Conversations',
      summary: 'Mark a conversation read',
      description: 'Its unread count goes back to 0.',
      answers: { 200: conversation },
      errors: notFound('CONVERSATION'),
    },
  },
  '/conversations/{id}/notes': {
    post: {
      id: 'addConversationNote',
      tag: 'Conversations',
      summary: 'Leave the team a note on a conversation',
      description:
        'A private note ("wants a quote by Friday"), signed by the member who wrote it (null for the API key): it never reaches the contact, the bot, a webhook or the conversation\'s messages, and changes nothing of the conversation (status, assignee, unread, needsReply, bot). The text is trimmed, 1 to 4096 characters. ' +
        'The same Idempotency-Key with the same body answers the first note again (Idempotent-Replayed: true) and adds nothing.',
      body: schemas.noteCreate,
      takes: ['Idempotency-Key'],
      headers: ['Idempotent-Replayed'],
      answers: { 201: note },
      errors: keyed(notFound('CONVERSATION')),
    },
    get: {
      id: 'listConversationNotes',
      tag: 'Conversations',
      summary: "A conversation's notes, oldest first",
      paged: true,
      answers: { 200: page(note) },
      errors: notFound('CONVERSATION'),
    },
  },
  '/conversations/{id}/notes/{noteId}': {
    delete: {
      id: 'deleteConversationNote',
      tag: 'Conversations',
      summary: 'Delete a note',
      description:
        "Its author deletes it, and so do the owner and admins (and the API key); another agent's is 403 FORBIDDEN.",
      answers: { 204: null },
      errors: { 403: ['FORBIDDEN'], ...notFound('CONVERSATION', 'NOTE') },
    },
  },
  '/labels': {
    get: {
      id: 'listLabels',
      tag: 'Conversations',
      summary: "The account's labels in use, sorted by name",
      description:
        "Every label one of the account's conversations carries, with how many carry it (case aside: one label however spelled, named as most of them spell it), sorted by name, for a picker. A label no conversation carries any more is not listed.",
      answers: { 200: labelList },
    },
  },
  '/saved-replies': {
    post: {
      id: 'createSavedReply',
      tag: 'Saved replies',
      summary: 'Save a reply for the team',
      description:
        'A reply the whole team puts in a conversation\'s reply box ("Our prices are on …"), signed by the member who saved it (null for the API key). ' +
        'The name (1 to 80 characters) and the text (1 to 4096) are trimmed; the name is unique in the account, case aside (409 SAVED_REPLY_NAME_TAKEN). ' +
        "The text may hold a campaign message's placeholders ({{first_name|there}}, {{custom.plan}}); an unknown one is 400 UNKNOWN_TEMPLATE_FIELD. " +
        'An account keeps at most 1000 (409 TOO_MANY_SAVED_REPLIES). Every member saves them. ' +
        'The same Idempotency-Key with the same body answers the first one again (Idempotent-Replayed: true) and saves nothing.',
      body: schemas.savedReplyCreate,
      takes: ['Idempotency-Key'],
      headers: ['Idempotent-Replayed'],
      answers: { 201: savedReply },
      errors: keyed({ 400: ['UNKNOWN_TEMPLATE_FIELD'], 409: ['SAVED_REPLY_NAME_TAKEN', 'TOO_MANY_SAVED_REPLIES'] }),
    },
    get: {
      id: 'listSavedReplies',
      tag: 'Saved replies',
      summary: "The account's saved replies, sorted by name",
      description: 'With q: those whose name or text holds it, case and accents aside.',
      query: schemas.savedReplyQuery,
      paged: true,
      answers: { 200: page(savedReply) },
      errors: { 400: ['INVALID_CURSOR'] },
    },
  },
  '/saved-replies/{id}': {
    get: {
      id: 'getSavedReply',
      tag: 'Saved replies',
      summary: 'Get a saved reply, filled in for a conversation',
      description:
        "With conversationId, its renderedText is the text with its placeholders filled in for the conversation's contact, as a campaign's message is: what the contact would get. " +
        'The console shows it in the reply box, to edit and send as any reply; nothing is sent.',
      query: schemas.savedReplyRender,
      answers: { 200: savedReply.or(renderedSavedReply) },
      errors: notFound('SAVED_REPLY', 'CONVERSATION'),
    },
    patch: {
      id: 'updateSavedReply',
      tag: 'Saved replies',
      summary: 'Change a saved reply',
      description:
        "Its name, its text, or both, held to the rules of a new one. Its author changes it, and so do the owner and admins (and the API key); another agent's is 403 FORBIDDEN.",
      body: schemas.savedReplyUpdate,
      answers: { 200: savedReply },
      errors: {
        400: ['UNKNOWN_TEMPLATE_FIELD'],
        403: ['FORBIDDEN'],
        ...notFound('SAVED_REPLY'),
        409: ['SAVED_REPLY_NAME_TAKEN'],
      },
    },
    delete: {
      id: 'deleteSavedReply',
      tag: 'Saved replies',
      summary: 'Delete a saved reply',
      description:
        "Its author deletes it, and so do the owner and admins (and the API key); another agent's is 403 FORBIDDEN.",
      answers: { 204: null },
      errors: { 403: ['FORBIDDEN'], ...notFound('SAVED_REPLY') },
    },
  },
  '/incoming_custom_channel_message': {
    post: {
      id: 'receiveCustomChannelMessage',
      tag: 'Messages',
      summary: 'Receive a message from a custom channel',
      description:
        'The same messageSid (or id) again answers the message stored the first time. Errors are `{"error": "message"}` here.',
      body: schemas.incomingMessage,
      example: {
        customData: {
          messageSid: 'chat-7f3a91',
          fromId: 'visitor-1042',
          toId: 'acme-website',
          body: 'Hi, do you deliver on Sundays?',
          channel: 'web-chat',
          firstName: 'Dana',
        },
      },
      answers: { 200: incomingReceived },
      errors: { 400: ['INVALID_PHONE', 'INVALID_EMAIL', 'MEDIA_TYPE_MISMATCH'], ...notFound('CAMPAIGN') },
    },
  },
  '/send_custom_channel_message': {
    post: {
      id: 'sendCustomChannelMessage',
      tag: 'Messages',
      summary: 'Send a message through a custom channel',
      description:
        'A message that cannot go (no credits, no receiver) is stored `failed` with its `errorCode` (GET /messages/{id}); only a contact who opted out is refused. ' +
        'The same Idempotency-Key with the same body answers the first message again (Idempotent-Replayed: true) and sends nothing.',
      body: schemas.sendMessage,
      takes: ['Idempotency-Key'],
      headers: ['Idempotent-Replayed'],
      answers: { 200: sent },
      errors: keyed({
        400: ['INVALID_PHONE', 'INVALID_EMAIL', 'MEDIA_TYPE_MISMATCH'],
        ...notFound('CAMPAIGN'),
        409: ['CONTACT_OPTED_OUT'],
      }),
    },
  },
  '/messages/{id}': {
    get: {
      id: 'getMessage',
      tag: 'Messages',
      summary: 'A message with its delivery attempts',
      answers: { 200: messageWithDeliveries },
      errors: notFound('MESSAGE'),
    },
  },
  '/messages/{id}/retry': {
    post: {
      id: 'retryMessage',
      tag: 'Messages',
      summary: 'Send a failed message again',
      description: 'Back to pending; charged only if it was never handed to its channel.',
      answers: { 200: messageWithDeliveries },
      errors: {
        ...notFound('MESSAGE'),
        409: [
          'MESSAGE_NOT_FAILED',
          'MESSAGE_INCOMING',
          'MESSAGE_NOT_RETRYABLE',
          'INSUFFICIENT_CREDITS',
          'OUTSIDE_24H_WINDOW',
          'CONTACT_OPTED_OUT',
          'CONTACT_WROTE_SINCE',
          'CONTACT_LEFT_LIST',
          'HANDED_OFF',
          'OPENING_SUPERSEDED',
          'NO_RECEIVER',
        ],
      },
    },
  },
  '/media/{id}': {
    get: {
      id: 'getMedia',
      tag: 'Messages',
      summary: 'A media file received with a message',
      description:
        'A media file received with a message. One range of bytes in Range (`bytes=0-1023`, `bytes=1024-`, `bytes=-1024`) is answered 206 with those bytes and Content-Range, so that a player can seek in a recording; a range starting past the end is 416 RANGE_NOT_SATISFIABLE with `Content-Range: bytes */<size>`; a malformed Range, several ranges, or Range with If-Range, the whole file with 200.',
      answers: { 200: 'file', 206: 'file' },
      headers: ['Accept-Ranges', 'Content-Range', 'Content-Disposition'],
      takes: ['Range', 'If-Range'],
      errors: { ...notFound('MEDIA'), 416: ['RANGE_NOT_SATISFIABLE'] },
    },
  },
  '/channels': {
    get: {
      id: 'listChannels',
      tag: 'Channels',
      summary: 'The built-in channels',
      description:
        'Secrets masked, with the webhook addresses to give each provider; publicUrlConfigured: whether LEADCHAT_PUBLIC_URL is set (else the addresses are the one the gateway listens on).',
      answers: { 200: channels },
    },
  },
  '/channels/twilio': {
    put: {
      id: 'setTwilioChannel',
      tag: 'Channels',
      summary: 'Save Twilio credentials and senders (SMS, WhatsApp)',
      body: schemas.twilioChannel,
      answers: { 200: channels },
    },
    delete: {
      id: 'removeTwilioChannel',
      tag: 'Channels',
      summary: 'Remove the Twilio channel',
      description: 'SMS goes back to the log provider.',
      answers: { 200: channels },
      errors: notFound('CHANNEL'),
    },
  },
  '/channels/whatsapp': {
    put: {
      id: 'setWhatsAppChannel',
      tag: 'Channels',
      summary: 'Save WhatsApp Cloud API credentials',
      body: schemas.whatsappChannel,
      answers: { 200: channels },
    },
    delete: {
      id: 'removeWhatsAppChannel',
      tag: 'Channels',
      summary: 'Remove the WhatsApp Cloud API channel',
      answers: { 200: channels },
      errors: notFound('CHANNEL'),
    },
  },
  '/channels/messenger': {
    put: {
      id: 'setMessengerChannel',
      tag: 'Channels',
      summary: "Connect a Facebook Page's Messenger",
      body: schemas.messengerChannel,
      answers: { 200: channels },
    },
    delete: {
      id: 'removeMessengerChannel',
      tag: 'Channels',
      summary: 'Remove the Messenger channel',
      answers: { 200: channels },
      errors: notFound('CHANNEL'),
    },
  },
  '/channels/instagram': {
    put: {
      id: 'setInstagramChannel',
      tag: 'Channels',
      summary: "Connect an Instagram professional account's messages",
      body: schemas.instagramChannel,
      answers: { 200: channels },
    },
    delete: {
      id: 'removeInstagramChannel',
      tag: 'Channels',
      summary: 'Remove the Instagram channel',
      answers: { 200: channels },
      errors: notFound('CHANNEL'),
    },
  },
  '/channels/{channel}/incoming': {
    post: {
      id: 'receiveLogChannelMessage',
      tag: 'Channels',
      summary: 'A message from a contact on SMS or WhatsApp, while the channel runs on the log provider',
      body: schemas.channelIncoming,
      answers: { 200: received },
      errors: { 400: ['INVALID_PHONE'], ...notFound('CHANNEL'), 409: ['CHANNEL_NOT_OFFLINE'] },
    },
  },
  '/members': {
    get: {
      id: 'listMembers',
      tag: 'Team',
      summary: "The account's team",
      description: 'The owner first, then the members in the order they were invited.',
      paged: true,
      answers: { 200: page(member) },
    },
    post: {
      id: 'inviteMember',
      tag: 'Team',
      summary: 'Invite a member',
      description: 'Answers the member with inviteUrl, shown this once, for them to set a password.',
      body: schemas.memberInvite,
      answers: { 201: invitation },
      errors: { 400: ['INVALID_EMAIL'], 409: ['EMAIL_TAKEN'] },
    },
  },
  '/members/{id}': {
    get: {
      id: 'getMember',
      tag: 'Team',
      summary: 'Get a member of the team',
      answers: { 200: member },
      errors: notFound('MEMBER'),
    },
    patch: {
      id: 'updateMember',
      tag: 'Team',
      summary: "Change a member's name or role",
      description: "The owner's role does not change.",
      body: schemas.memberUpdate,
      answers: { 200: member },
      errors: { ...notFound('MEMBER'), 403: ['OWNER_UNCHANGEABLE'] },
    },
    delete: {
      id: 'removeMember',
      tag: 'Team',
      summary: 'Remove a member',
      description: 'Their sessions end at once and their conversations are unassigned; the owner cannot be removed.',
      answers: { 204: null },
      errors: { ...notFound('MEMBER'), 403: ['OWNER_UNCHANGEABLE'] },
    },
  },
  '/members/{id}/invite': {
    post: {
      id: 'renewInvitation',
      tag: 'Team',
      summary: 'A new invitation link for a member',
      description: 'For a lost or expired link, or a forgotten password: earlier links stop opening.',
      answers: { 200: invitation },
      errors: { ...notFound('MEMBER'), 403: ['OWNER_UNCHANGEABLE'] },
    },
  },
  '/members/{id}/availability': {
    put: {
      id: 'setMemberAvailability',
      tag: 'Team',
      summary: 'Set a member away or available',
      description:
        "`me`: the caller (the owner with the API key). Round robin passes an away member by; going away hands off anew each of their conversations waiting for a person. Everyone sets their own, the owner and admins anyone's; an agent setting another's is 403 FORBIDDEN.",
      body: schemas.memberAvailability,
      answers: { 200: member },
      errors: { 403: ['FORBIDDEN'], ...notFound('MEMBER') },
    },
  },
  '/credits': {
    get: {
      id: 'getCredits',
      tag: 'Credits',
      summary: 'Credit balance and history',
      query: schemas.creditsQuery,
      answers: { 200: creditsAnswer },
    },
  },
  '/credits/history': {
    get: {
      id: 'listCreditHistory',
      tag: 'Credits',
      summary: "The account's credit history",
      description:
        'Grants, recharges (grants answering an auto-recharge request) and what each message cost, with its kind and channel; newest first. Filtered by `kind`, and by days (`from`, `to`, both included) of a `timezone`.',
      query: schemas.creditHistoryQuery,
      paged: true,
      answers: { 200: page(creditEntry) },
    },
  },
  '/credits/low-balance': {
    put: {
      id: 'setLowBalanceThreshold',
      tag: 'Credits',
      summary: 'Set the low-balance threshold',
      description:
        "A sub-account's team is warned on every console page while the balance is under it (`lowBalance` in GET /credits).",
      body: schemas.lowBalance,
      answers: { 200: lowBalanceAnswer },
    },
  },
  '/subaccounts': {
    get: {
      id: 'listSubAccounts',
      tag: 'Credits',
      summary: "The agency's sub-accounts",
      description: 'With their balances and auto-recharge rules, oldest first.',
      paged: true,
      answers: { 200: page(subAccount) },
      errors: { 403: ['NOT_AGENCY'] },
    },
  },
  '/subaccounts/{id}': {
    delete: {
      id: 'deleteSubAccount',
      tag: 'Credits',
      summary: 'Delete a sub-account and all its data',
      description:
        "The sub-account is gone at once, as an account that never was: its API key is 401, its team's console sessions end, its channels' webhooks and jobs stop. Its data (contacts, conversations, messages and files, lists, campaigns, notes, webhooks, members, its credit history) then goes in the background; GET /subaccounts/{id}/deletion says when it is done. " +
        "Its unspent balance comes back to the agency once, as a returned line of the agency's credit history naming it by id; the agency's granted lines naming it stay. " +
        'Asked again: the same deletion (202 while deleting, 200 once done), nothing returned twice. Owner and admins; agents 403 FORBIDDEN.',
      answers: { 200: accountDeletionAnswer, 202: accountDeletionAnswer },
      errors: { 403: ['NOT_AGENCY'], ...notFound('SUB_ACCOUNT'), 409: ['ACCOUNT_HAS_SUBACCOUNTS'] },
    },
  },
  '/subaccounts/{id}/deletion': {
    get: {
      id: 'getSubAccountDeletion',
      tag: 'Credits',
      summary: "A deleted sub-account's deletion",
      description:
        'Whether its data is gone yet (status deleting or done) and what went, per collection. 404 SUB_ACCOUNT_DELETION_NOT_FOUND for a sub-account of the agency not deleted.',
      answers: { 200: accountDeletionAnswer },
      errors: { 403: ['NOT_AGENCY'], 404: ['SUB_ACCOUNT_NOT_FOUND', 'SUB_ACCOUNT_DELETION_NOT_FOUND'] },
    },
  },
  '/subaccounts/{id}/credits': {
    get: {
      id: 'getSubAccountCredits',
      tag: 'Credits',
      summary: "A sub-account's credit balance and history",
      query: schemas.creditsQuery,
      answers: { 200: creditsAnswer },
      errors: { 403: ['NOT_AGENCY'], ...notFound('SUB_ACCOUNT') },
    },
  },
  '/subaccounts/{id}/credits/history': {
    get: {
      id: 'listSubAccountCreditHistory',
      tag: 'Credits',
      summary: "A sub-account's credit history",
      description:
        'As GET /v1/credits/history shows it to the sub-account: grants, recharges and what each message cost; newest first, with the same filters.',
      query: schemas.creditHistoryQuery,
      paged: true,
      answers: { 200: page(creditEntry) },
      errors: { 403: ['NOT_AGENCY'], ...notFound('SUB_ACCOUNT') },
    },
  },
  '/subaccounts/credits': {
    post: {
      id: 'grantCredits',
      tag: 'Credits',
      summary: 'Grant credits to a sub-account',
      description:
        'The same Idempotency-Key with the same body answers the first grant again (Idempotent-Replayed: true) and grants nothing.',
      body: schemas.creditGrant,
      keyInHeader: true,
      takes: ['Idempotency-Key'],
      headers: ['Idempotent-Replayed'],
      answers: { 200: grant },
      errors: {
        400: ['INVALID_EMAIL', 'INVALID_IDEMPOTENCY_KEY'],
        403: ['NOT_AGENCY'],
        ...notFound('SUB_ACCOUNT'),
        409: ['IDEMPOTENCY_IN_FLIGHT'],
        422: ['IDEMPOTENCY_KEY_REUSED'],
      },
    },
  },
  '/subaccounts/auto-recharge': {
    put: {
      id: 'setAutoRecharge',
      tag: 'Credits',
      summary: 'Set auto-recharge for a sub-account',
      body: schemas.autoRecharge,
      keyInHeader: true,
      answers: { 200: autoRechargeAnswer },
      errors: { 403: ['NOT_AGENCY'], ...notFound('SUB_ACCOUNT') },
    },
  },
  '/settings': {
    get: {
      id: 'getSettings',
      tag: 'Settings',
      summary: 'Get the settings',
      description:
        'The Custom Channel Webhook and its signing secret, the HELP answer, hand-off assignment, notice and reminder, business hours and the away notice, the most answers the bot gives a conversation in an hour, and the default country of phone numbers.',
      answers: { 200: settings },
    },
    put: {
      id: 'updateSettings',
      tag: 'Settings',
      summary: 'Change the settings',
      description:
        'The Custom Channel Webhook URL, the HELP answer, who a hand-off is assigned to (handoffAssignment), how long a contact handed to the team may wait before the team is reminded (handoffReminderAfter), when the team works (businessHours) and what a contact is told out of those hours (awayMessage), the most answers the bot gives one conversation within an hour before the team takes it (botReplyLimit), or the country of phone numbers written without a country code (defaultCountry).',
      body: schemas.settingsUpdate,
      answers: { 200: settings },
      errors: { 400: ['TARGET_REFUSED', 'INVALID_DURATION', 'INVALID_BUSINESS_HOURS'] },
    },
  },
  '/settings/bot': {
    get: {
      id: 'getBotSettings',
      tag: 'Settings',
      summary: 'The bot provider and default campaign',
      answers: { 200: botSettings },
    },
    put: {
      id: 'updateBotSettings',
      tag: 'Settings',
      summary: 'Change the bot provider or default campaign',
      description:
        'An archived campaign answers no contact that it does not already have: it cannot be the default campaign (409 CAMPAIGN_ARCHIVED), and once the default is archived, a contact no other campaign reaches is handed to the team as with no default.',
      body: schemas.botSettingsUpdate,
      answers: { 200: botSettings },
      errors: { 400: ['TARGET_REFUSED'], ...notFound('CAMPAIGN'), 409: ['CAMPAIGN_ARCHIVED'] },
    },
  },
  '/settings/webhook-secret': {
    post: {
      id: 'rotateWebhookSecret',
      tag: 'Settings',
      summary: 'Rotate the webhook signing secret',
      description:
        'A new signing secret. The one it replaces still signs every webhook beside it for 24 hours (`previousSecretExpiresAt`), a second signature in `webhook-signature`, so receivers holding it keep verifying while they are updated.',
      answers: { 200: settings },
    },
  },
  '/settings/webhook-test': {
    post: {
      id: 'testWebhook',
      tag: 'Settings',
      summary: 'Post a test event to the Custom Channel Webhook URL',
      description: 'One signed `test` event now, answering what the receiver did; nothing is stored.',
      answers: { 200: webhookTestResult },
      errors: { 400: ['TARGET_REFUSED'], 409: ['NO_WEBHOOK_URL'] },
    },
  },
  '/api-key': {
    post: {
      id: 'rotateApiKey',
      tag: 'Settings',
      summary: 'Generate a new API key',
      description: 'The old one stops working at once.',
      answers: { 200: apiKey },
    },
  },
  '/audit-log': {
    get: {
      id: 'listAuditLog',
      tag: 'Audit log',
      summary: "The account's audit log, newest first",
      description:
        'Who changed what, and when: settings, the API key, the team, channels, webhook subscriptions, campaigns, lists, ' +
        "contacts' exports, erasures and merges, console sign-ins (with the address they came from). The actor is a member " +
        "(a console sign-in, the owner's included) or the API key; details name the settings and fields changed, never a " +
        "secret, a key, a password, a token or a message's text, and a contact is named by its id alone. Entries are kept " +
        '365 days. With action, actorId (api_key for the API key) or both: only those entries.',
      query: schemas.auditLogQuery,
      paged: true,
      answers: { 200: page(auditEntry) },
      errors: { 400: ['INVALID_CURSOR'] },
    },
  },
  '/webhooks': {
    post: {
      id: 'createWebhook',
      tag: 'Webhooks',
      summary: 'Subscribe a URL to events',
      description:
        "The answer carries the subscription's signing secret, shown this once. An account holds at most 50 subscriptions (409 TOO_MANY_WEBHOOKS). " +
        'The same Idempotency-Key with the same body answers the first subscription again, secret included (Idempotent-Replayed: true), and subscribes nothing.',
      body: schemas.webhookCreate,
      takes: ['Idempotency-Key'],
      headers: ['Idempotent-Replayed'],
      answers: { 201: webhookWithSecret },
      errors: keyed({ 400: ['TARGET_REFUSED'], 409: ['TOO_MANY_WEBHOOKS'] }),
    },
    get: {
      id: 'listWebhooks',
      tag: 'Webhooks',
      summary: 'Webhook subscriptions, oldest first',
      paged: true,
      answers: { 200: page(webhook) },
    },
  },
  '/webhooks/{id}': {
    get: {
      id: 'getWebhook',
      tag: 'Webhooks',
      summary: 'Get a webhook subscription',
      answers: { 200: webhook },
      errors: notFound('WEBHOOK'),
    },
    delete: {
      id: 'deleteWebhook',
      tag: 'Webhooks',
      summary: 'Unsubscribe',
      answers: { 204: null },
      errors: notFound('WEBHOOK'),
    },
  },
  '/webhooks/{id}/enable': {
    post: {
      id: 'enableWebhook',
      tag: 'Webhooks',
      summary: 'Enable a disabled subscription',
      description:
        'Events are posted to it again from the next one on (a delivery that failed while it was disabled is not sent again). One already enabled is answered as it is.',
      answers: { 200: webhook },
      errors: notFound('WEBHOOK'),
    },
  },
};
