import { z } from 'zod';
import { MAX_PROBLEMS } from '../api-contract.js';
import { MAX_ERRORS } from '../domain/imports.js';
import { AUTH_FAILURE_WINDOW_MS, AUTH_FAILURES_PER_ADDRESS } from './middleware/auth-failures.js';
import { pageQuery } from './paging.js';
import * as schemas from './schemas.js';

/**
 * The OpenAPI 3.1 document of the /v1 API, built from the very schemas the routes validate with, so the two
 * cannot drift apart.
 */
type Op = { summary: string; body?: z.ZodType; example?: unknown; query?: z.ZodType; ok: number; auth?: 'header'; page?: true; answer?: keyof typeof answers };

const ops: Record<string, Partial<Record<'get' | 'post' | 'put' | 'patch' | 'delete', Op>>> = {
  '/contacts': {
    post: { summary: 'Create a contact (an existing phone, or external ID, returns the existing contact; an external ID another contact holds is 409 EXTERNAL_ID_TAKEN)', body: schemas.contactCreate, ok: 201 },
    get: { summary: 'Get contact details by phoneNumber or email; or search contacts (q): a page of them, by the start of a name\'s word or of the email, the last digits of the phone, or an external ID', query: schemas.contactLookup, ok: 200 },
  },
  '/contacts/{id}': { get: { summary: 'Get a contact by ID', ok: 200 } },
  '/contacts/{id}/messages': {
    get: { summary: "A contact's messages, oldest first", ok: 200, page: true },
    post: { summary: "A team member's reply, on the conversation's channel (the bot stops there); 409 CONTACT_UNREACHABLE when the contact has no address there", body: schemas.teamMessage, ok: 201 },
  },
  '/contacts/{id}/bot': { post: { summary: 'Hand the contact to a person (active false) or give it back to the bot', body: schemas.botState, ok: 200 } },
  '/conversations': { get: { summary: 'Conversations, newest activity first', query: schemas.conversationQuery, ok: 200 } },
  '/conversations/{id}': { get: { summary: 'A conversation', ok: 200 } },
  '/conversations/{id}/assign': {
    post: { summary: 'Assign the conversation to a member (or the owner; "me": the caller), or to nobody (null); 409 MEMBER_NOT_ACTIVE for an invitation not accepted', body: schemas.assignment, ok: 200 },
  },
  '/members': {
    get: { summary: "The account's team: the owner first, then the members in the order they were invited", ok: 200, page: true },
    post: { summary: 'Invite a member (admins and the owner): answers the member with inviteUrl, shown this once, for them to set a password; 409 EMAIL_TAKEN', body: schemas.memberInvite, ok: 201 },
  },
  '/members/{id}': {
    get: { summary: 'A member of the team', ok: 200 },
    patch: { summary: "Change a member's name or role (admins and the owner); the owner's role does not change", body: schemas.memberUpdate, ok: 200 },
    delete: { summary: 'Remove a member (admins and the owner): their sessions end at once and their conversations are unassigned; the owner cannot be removed', ok: 204 },
  },
  '/members/{id}/invite': {
    post: { summary: 'A new invitation link for a member (a lost or expired one, or a forgotten password): earlier links stop opening', ok: 200 },
  },
  '/conversations/{id}/read': { post: { summary: 'Mark the conversation read: its unread count (messages from the contact since) goes back to 0', ok: 200 } },
  '/campaigns/{id}/bot/test': {
    post: { summary: "Ask the campaign's bot a test question: its answer and its basis (the FAQs and resources it rests on, the FAQ bot's confidence); nothing is sent, stored or charged", body: schemas.botTest, ok: 200 },
  },
  '/campaigns/{id}/unanswered': {
    get: { summary: "What the campaign's bot handed off for want of an answer: its latest 1,000 such questions, grouped when they ask the same thing, largest groups first, each with the FAQ that answers it now if one does", query: schemas.unansweredQuery, ok: 200 },
  },
  '/campaigns/{id}/reach-existing': {
    post: {
      summary:
        'Message the contacts already on a Live campaign\'s list (admins and the owner): each that has had no opening message from the campaign gets one, paced like new additions, each once however often this is called; answers {queued, unreachable: {reason: count}}; 409 CAMPAIGN_NOT_LIVE, CAMPAIGN_WITHOUT_LIST',
      ok: 202,
    },
  },
  '/campaigns/{id}/preview': { get: { summary: "A campaign's opening message as a contact would get it", query: schemas.campaignPreview, ok: 200 } },
  '/campaigns/{id}/funnel': {
    get: { summary: "A campaign's funnel: contacts added, opening sent, replied, handed off, opted out, goal reached, failed; in total and per day", query: schemas.funnelQuery, ok: 200 },
  },
  '/channels': {
    get: {
      summary: 'The Twilio, WhatsApp Cloud API, Messenger and Instagram channels, secrets masked, with the webhook addresses to give each provider; publicUrlConfigured: whether LEADCHAT_PUBLIC_URL is set (else the addresses are the one the gateway listens on)',
      ok: 200,
    },
  },
  '/channels/twilio': {
    put: { summary: 'Save Twilio credentials and senders (SMS, WhatsApp)', body: schemas.twilioChannel, ok: 200 },
    delete: { summary: 'Remove the Twilio channel (SMS goes back to the log provider)', ok: 200 },
  },
  '/channels/whatsapp': {
    put: { summary: 'Save WhatsApp Cloud API credentials', body: schemas.whatsappChannel, ok: 200 },
    delete: { summary: 'Remove the WhatsApp Cloud API channel', ok: 200 },
  },
  '/channels/messenger': {
    put: { summary: "Connect a Facebook Page's Messenger (its webhook address is in the answer)", body: schemas.messengerChannel, ok: 200 },
    delete: { summary: 'Remove the Messenger channel', ok: 200 },
  },
  '/channels/instagram': {
    put: { summary: "Connect an Instagram professional account's messages (its webhook address is in the answer)", body: schemas.instagramChannel, ok: 200 },
    delete: { summary: 'Remove the Instagram channel', ok: 200 },
  },
  '/channels/{channel}/incoming': { post: { summary: 'A message from a contact on SMS or WhatsApp, while the channel runs on the log provider', body: schemas.channelIncoming, ok: 200 } },
  '/lists': {
    post: { summary: 'Create a list', body: schemas.listCreate, ok: 201 },
    get: { summary: 'The lists, oldest first', ok: 200, page: true },
  },
  '/lists/{list_id}': { get: { summary: 'A list', ok: 200 } },
  '/lists/{list_id}/contacts': {
    post: { summary: 'Add a contact to a list', body: schemas.listAdd, ok: 201 },
    get: { summary: "A list's contacts, in the order they joined", ok: 200, page: true },
  },
  '/lists/{list_id}/imports': {
    post: { summary: 'Import contacts into a list (CSV or contact objects), as a job; answers the import', body: schemas.importCreate, ok: 202, answer: 'Import' },
    get: { summary: "A list's imports, newest first", ok: 200, page: true },
  },
  '/imports/{id}': {
    get: { summary: 'An import with its progress, counts (unreachable: rows added that a Live campaign of the list cannot reach; warnings: rows added without their phone), rejected rows and warned rows', ok: 200, answer: 'Import' },
  },
  '/campaigns': {
    post: { summary: 'Create a campaign', body: schemas.campaignCreate, ok: 201 },
    get: { summary: 'The campaigns, oldest first', ok: 200, page: true },
  },
  '/campaigns/{id}': {
    get: { summary: 'Get a campaign, with the contacts it could not reach: unreachable {total, byReason: {no_external_id, no_phone, opted_out, outside_whatsapp_window, no_first_message, outside_meta_window}}', ok: 200 },
    patch: { summary: 'Change a campaign', body: schemas.campaignUpdate, ok: 200 },
  },
  '/conversations/retry-failed': {
    post: { summary: 'Retry all failed: every failed outgoing message of the conversations holding one (100 conversations a call), oldest first: {retried, refused: [{messageId, code, message}], more}', ok: 200 },
  },
  '/conversations/{id}/retry-failed': {
    post: { summary: "Retry all failed: every failed outgoing message of the conversation, oldest first: {retried, refused, more: false}", ok: 200 },
  },
  '/send_custom_channel_message': { post: { summary: 'Send a message through a custom channel', body: schemas.sendMessage, ok: 200 } },
  '/incoming_custom_channel_message': {
    post: {
      summary: 'Receive an incoming message from a custom channel',
      body: schemas.incomingMessage,
      example: { customData: { messageSid: 'chat-7f3a91', fromId: 'visitor-1042', toId: 'acme-website', body: 'Hi, do you deliver on Sundays?', channel: 'web-chat', firstName: 'Dana' } },
      ok: 200,
    },
  },
  '/messages/{id}': { get: { summary: 'A message with its delivery attempts', ok: 200 } },
  '/messages/{id}/retry': {
    post: {
      summary: 'Send a failed outgoing message again (back to pending; charged only if it was never handed to its channel); 409 MESSAGE_NOT_FAILED, MESSAGE_INCOMING, INSUFFICIENT_CREDITS, OUTSIDE_24H_WINDOW, CONTACT_OPTED_OUT, NO_RECEIVER',
      ok: 200,
    },
  },
  '/media/{id}': { get: { summary: 'An embedded media file received with a message', ok: 200 } },
  '/subaccounts/credits': { post: { summary: 'Grant credits to a sub-account (agency only)', body: schemas.creditGrant, ok: 200, auth: 'header' } },
  '/subaccounts/auto-recharge': { put: { summary: 'Set auto-recharge for a sub-account (agency only)', body: schemas.autoRecharge, ok: 200, auth: 'header' } },
  '/credits': { get: { summary: 'Credit balance and history', ok: 200 } },
  '/subaccounts': { get: { summary: "The agency's sub-accounts with their balances and auto-recharge rules, oldest first (agency only)", ok: 200, page: true } },
  '/subaccounts/{id}/credits': { get: { summary: "A sub-account's credit balance and history, as GET /credits shows it (agency only)", ok: 200 } },
  '/settings': {
    get: { summary: 'Custom Channel Webhook settings and signing secret, the HELP answer, hand-off assignment and the default country of phone numbers', ok: 200 },
    put: { summary: 'Save the Custom Channel Webhook URL, the HELP answer, who a hand-off is assigned to (handoffAssignment), or the country of phone numbers written without a country code (defaultCountry)', body: schemas.settingsUpdate, ok: 200 },
  },
  '/settings/bot': {
    get: { summary: 'Bot provider (FAQ bot or OpenAI-compatible) and default campaign', ok: 200 },
    put: { summary: 'Change the bot provider or default campaign', body: schemas.botSettingsUpdate, ok: 200 },
  },
  '/settings/webhook-secret': { post: { summary: 'Rotate the webhook signing secret', ok: 200 } },
  '/settings/webhook-test': {
    post: {
      summary: 'Post one signed `test` event to the Custom Channel Webhook URL now and answer what the receiver did: {url, status, ok, error, durationMs, webhookId}; nothing is stored; 409 NO_WEBHOOK_URL, 400 TARGET_REFUSED, 429 RATE_LIMITED',
      ok: 200,
    },
  },
  '/api-key': { post: { summary: 'Generate a new API key (the old one stops working)', ok: 200 } },
  '/webhooks': {
    post: { summary: 'Subscribe a URL to events', body: schemas.webhookCreate, ok: 201 },
    get: { summary: 'Webhook subscriptions, oldest first', ok: 200, page: true },
  },
  '/webhooks/{id}': {
    get: { summary: 'A webhook subscription', ok: 200 },
    delete: { summary: 'Unsubscribe', ok: 204 },
  },
};

const jsonSchema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' });

const count = (description: string) => ({ type: 'integer', minimum: 0, description });
/** A row of an import's report: `row` as a spreadsheet shows it (the header is row 1; for `contacts` the position from 1). */
const rowProblem = (extra: Record<string, object>) => ({
  type: 'object',
  properties: { row: { type: 'integer' }, ...extra, code: { type: 'string' }, message: { type: 'string' } },
  required: ['row', ...Object.keys(extra), 'code', 'message'],
});

/** The answers documented with their shape, as components. */
const answers = {
  Import: {
    type: 'object',
    description: 'An import: queued, running as its rows are applied 500 at a time, then done',
    properties: {
      id: { type: 'string' },
      listId: { type: 'string' },
      status: { type: 'string', enum: ['queued', 'running', 'done'] },
      total: count('Data rows of the file (blank lines not counted)'),
      processed: count('Rows applied so far'),
      added: count('Contacts added to the list'),
      alreadyInList: count('Rows whose contact was in the list already'),
      duplicates: count('Rows repeating the phone (or email, or first external ID) of an earlier row'),
      rejected: count('Rows not imported'),
      unreachable: count('Rows added that a Live campaign of the list cannot reach'),
      errors: { type: 'array', maxItems: MAX_ERRORS, description: `The first ${MAX_ERRORS} rejected rows`, items: rowProblem({}) },
      warnings: count('Rows imported without their phone, which could not be read: their email or external ID found the contact (without defaultCountry in the settings, a number written without its country code is not read)'),
      rowWarnings: {
        type: 'array',
        maxItems: MAX_ERRORS,
        description: `The first ${MAX_ERRORS} rows imported with a warning: the field left out (phone) and why (INVALID_PHONE)`,
        items: rowProblem({ field: { type: 'string' } }),
      },
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
    },
    required: ['id', 'listId', 'status', 'total', 'processed', 'added', 'alreadyInList', 'duplicates', 'rejected', 'unreachable', 'errors', 'warnings', 'rowWarnings', 'createdAt', 'updatedAt'],
  },
};

function operation(path: string, op: Op) {
  const params = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  // A list endpoint without filters takes the paging parameters alone; one with filters builds its query on them.
  const query = op.query ?? (op.page ? pageQuery : undefined);
  if (query) {
    const q = jsonSchema(query) as { properties?: Record<string, object> };
    for (const [name, schema] of Object.entries(q.properties ?? {})) params.push({ name, in: 'query', required: false, schema } as never);
  }
  const plainError = path === '/incoming_custom_channel_message';
  return {
    summary: op.summary,
    security: op.auth === 'header' ? [{ apiKeyHeader: [] }] : [{ apiKeyHeader: [] }, { bearer: [] }, { apiKeyQuery: [] }],
    ...(params.length ? { parameters: params } : {}),
    ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(op.body), ...(op.example ? { example: op.example } : {}) } } } } : {}),
    responses: {
      [op.ok]: op.page
        ? { description: 'One page', content: { 'application/json': { schema: { $ref: '#/components/schemas/Page' } } } }
        : op.answer
          ? { description: 'Success', content: { 'application/json': { schema: { $ref: `#/components/schemas/${op.answer}` } } } }
          : { description: 'Success' },
      default: { description: 'Error', content: { 'application/json': { schema: { $ref: plainError ? '#/components/schemas/PlainError' : '#/components/schemas/Error' } } } },
    },
  };
}

const AUTHENTICATION =
  'Every request carries the account\'s API key in one of `x-api-key`, `Authorization: Bearer` or `?apiKey=` (the credit ' +
  'grant takes `x-api-key` only). A key given in two of them, even the same key twice, is 400 AMBIGUOUS_CREDENTIALS; a ' +
  `missing or wrong key is 401. After ${AUTH_FAILURES_PER_ADDRESS} failed authentications from one client address in ` +
  `${AUTH_FAILURE_WINDOW_MS / 60_000} minutes, each further failure from that address is 429 RATE_LIMITED with ` +
  'Retry-After (seconds) until that time has passed; a valid key from it is never refused for those failures. The key acts as the account\'s owner; a web ' +
  'console session acts as its member, and an agent is 403 FORBIDDEN on settings, channels, webhooks, members\' changes, ' +
  'campaign changes and agency credits.';

export function openApiDocument(serverUrl: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'LeadChat API',
      version: '1',
      description:
        `${AUTHENTICATION} ` +
        'Request bodies are JSON in UTF-8: a body with bytes that are not UTF-8 is 400 INVALID_ENCODING, another charset 415. ' +
        'Each query parameter is given once, as a single value: one repeated (?limit=1&limit=2) or in brackets (limit[]=1) is 400 VALIDATION_ERROR naming it.',
    },
    servers: [{ url: serverUrl }],
    paths: Object.fromEntries(
      Object.entries(ops).map(([path, methods]) => [
        path,
        Object.fromEntries(Object.entries(methods).map(([m, op]) => [m, operation(path, op!)])),
      ]),
    ),
    components: {
      securitySchemes: {
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        apiKeyQuery: { type: 'apiKey', in: 'query', name: 'apiKey' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
      schemas: {
        Error: {
          type: 'object',
          properties: {
            error: {
              type: 'object',
              properties: {
                code: { type: 'string' },
                message: { type: 'string', description: `Every problem of the request, joined by "; " (at most ${MAX_PROBLEMS})` },
                fields: {
                  type: 'array',
                  description: 'On a 400 about fields of the request: each problem with its field ("bot.faqs.4.answer", indexes from 0)',
                  items: {
                    type: 'object',
                    properties: {
                      field: { type: 'string' },
                      code: { type: 'string', description: 'REQUIRED, TOO_LONG, TOO_SHORT, TOO_MANY, TOO_FEW, TOO_BIG, TOO_SMALL, INVALID, or a rule\'s own code such as INVALID_DURATION' },
                      message: { type: 'string' },
                      limit: { type: 'number', description: 'With TOO_* codes: the limit passed' },
                    },
                    required: ['field', 'code', 'message'],
                  },
                },
              },
              required: ['code', 'message'],
            },
          },
        },
        PlainError: { type: 'object', properties: { error: { type: 'string' } } },
        ...answers,
        Page: {
          type: 'object',
          properties: {
            data: { type: 'array', items: {} },
            nextCursor: {
              type: ['string', 'null'],
              description: 'Pass as `cursor` for the next page of the same path and filters, with the same key; null on the last page',
            },
          },
          required: ['data', 'nextCursor'],
        },
      },
    },
  };
}
