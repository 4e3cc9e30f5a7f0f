import { z } from 'zod';
import {
  AVAILABILITIES,
  AUDIT_ACTIONS,
  CAMPAIGN_CHANNELS,
  CAMPAIGN_STATUSES,
  CAMPAIGN_COUNTS,
  CAMPAIGN_LIMITS as C,
  CONTACT_SEARCH,
  HANDOFF_ASSIGNMENTS,
  IMPORT_DELIMITERS,
  MAX_CUSTOM_FIELDS,
  MAX_EXTERNAL_IDS,
  MEMBER_ROLES,
  TEXT_LIMITS as T,
} from '../api-contract.js';
import { UNREACHABLE_REASONS } from '../contract/campaigns.js';
import { DEFAULT_SEND_RATE } from '../domain/campaigns.js';
import { classify, type Intent } from '../engine/keywords.js';
import { normalForm } from '../normal-form.js';
import { EVENTS } from '../domain/events.js';
import { knownZone } from '../domain/time-zone.js';
import { HISTORY_KINDS } from '../domain/credit-history.js';
import { pageFields, pageQuery } from './paging.js';
import { identifiable } from '../domain/contact-identity.js';
import { searchQuery } from '../domain/contact-search.js';
import { isEmail } from '../domain/email.js';
import { isPhoneCountry } from '../domain/phone.js';
import { MAX_BOT_REPLY_LIMIT } from '../domain/bot-reply-limit.js';
import { LABEL_LENGTH, MAX_LABELS } from '../domain/label-key.js';

/**
 * One schema per request body, used by its route and by the OpenAPI document. Field names follow the spec,
 * including the snake_case spellings its funnel examples show.
 */
const text = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);
const name = text(T.name);
const email = z
  .string()
  .trim()
  .max(T.email)
  .refine(isEmail, 'must be an email address')
  .transform((v) => v.toLowerCase());
const phone = z.string().max(T.phone, `must be at most ${T.phone} characters`);
const id = z.string().trim().min(1, 'must not be empty').max(100);
/**
 * A character that shows: neither white space nor one invisible by design (zero-width ones, direction marks, the soft
 * hyphen, the Braille blank and the Hangul fillers), which a text made of them alone would show nothing of.
 */
const VISIBLE = /[^\s\p{Cf}\u2800\u3164\u115f\u1160\uffa0]/u;
const nonBlank = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .refine((v) => VISIBLE.test(v), 'must not be empty or whitespace');

/**
 * A custom channel's label, as it is given by name: a key of every contact's external IDs, where "__proto__" would be
 * an object's prototype rather than a label (json-body.ts refuses it as a key).
 */
const ownLabel = (v: string) => v !== '__proto__';
const LABEL_REFUSED = 'must not be "__proto__"';
const label = text(T.channelLabel).min(1, 'a custom channel label must not be empty');

/**
 * A conversation's label ("Hot lead"): trimmed, 1 to LABEL_LENGTH characters that show, none of them a control
 * character (a line break or a tab would break the chip that shows it, and the CSV a workflow writes of it), nor a
 * path's dot segment, "." or "..": DELETE /v1/conversations/{id}/labels/{label} could not name it, as a browser,
 * n8n and every client built on the WHATWG URL resolve it (`%2E%2E` too) before sending, and it would stay for good.
 */
const CONTROL = /\p{Cc}/u;
const DOT_SEGMENT = /^\.\.?$/;
const conversationLabel = z
  .string()
  .refine((v) => !CONTROL.test(v), 'must not hold control characters (line breaks, tabs)')
  .transform((v) => v.trim())
  .pipe(
    z
      .string()
      .max(LABEL_LENGTH, `must be at most ${LABEL_LENGTH} characters`)
      .refine((v) => VISIBLE.test(v), 'must not be empty or whitespace')
      .refine((v) => !DOT_SEGMENT.test(v), 'must not be "." or "..", which a URL cannot name to remove it'),
  );

/** An object of at most `max` entries, refused as a list of too many is: TOO_MANY with its limit. */
const atMost =
  (max: number, what: string) =>
  (o: object, ctx: z.RefinementCtx): void => {
    if (Object.keys(o).length > max)
      ctx.addIssue({ code: 'too_big', origin: 'record', maximum: max, input: o, message: `at most ${max} ${what}` });
  };

/**
 * A custom field's value by its name. A field needs a name (a message reads it as {{custom.<name>}}), but a correction
 * may remove one stored without (null), as the console's form does with a field it cannot show.
 */
const customFields = z
  .record(z.string().max(100), z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]))
  .superRefine(atMost(MAX_CUSTOM_FIELDS, 'custom fields'))
  .superRefine((fields, ctx) => {
    for (const [name, value] of Object.entries(fields)) {
      if (name.trim() === '' && value !== null)
        ctx.addIssue({
          code: 'custom',
          path: [name],
          input: value,
          message: 'a custom field needs a name',
          params: { field: 'REQUIRED' },
        });
    }
  });

const externalIds = z
  .record(label, id)
  .superRefine(atMost(MAX_EXTERNAL_IDS, 'external IDs'))
  .describe(
    'The contact\'s ID on each custom channel, by its label: {"livechat":"visitor-42"}. An ID belongs to one contact of the account',
  );

const externalIdChanges = z.record(label, id.nullable()).superRefine(atMost(MAX_EXTERNAL_IDS, 'external IDs'));

/**
 * A field given in both spellings (camelCase and the spec's snake_case) with two values: which was meant cannot be
 * told, so it is refused rather than one taken.
 */
const oneSpelling =
  (...pairs: Array<[string, string]>) =>
  (body: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    for (const [camel, snake] of pairs) {
      const [a, b] = [body[camel], body[snake]];
      if (a !== undefined && b !== undefined && JSON.stringify(a) !== JSON.stringify(b))
        ctx.addIssue({
          code: 'custom',
          path: [snake],
          input: b,
          message: `differs from ${camel}: give one of the two`,
        });
    }
  };
const CONTACT_SPELLINGS: Array<[string, string]> = [
  ['firstName', 'first_name'],
  ['lastName', 'last_name'],
  ['phone', 'phone_number'],
  ['customFields', 'custom_fields'],
  ['externalIds', 'external_ids'],
];

export const contactCreate = z
  .object({
    firstName: name.optional(),
    first_name: name.optional(),
    lastName: name.optional(),
    last_name: name.optional(),
    phone: phone.optional(),
    phone_number: phone.optional(),
    email: z.string().max(T.email).optional(),
    customFields: customFields.optional(),
    custom_fields: customFields.optional(),
    externalIds: externalIds.optional(),
    external_ids: externalIds.optional(),
  })
  .superRefine(oneSpelling(...CONTACT_SPELLINGS))
  .transform((b) => ({
    firstName: b.firstName ?? b.first_name,
    lastName: b.lastName ?? b.last_name,
    phone: b.phone ?? b.phone_number,
    email: b.email,
    customFields: b.customFields ?? b.custom_fields,
    externalIds: b.externalIds ?? b.external_ids,
  }))
  .refine(identifiable, { message: 'at least one of phone, email or externalIds is required', path: ['phone'] });

const cleared = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** A correction of a contact: absent fields stay, null (or "") clears one, custom fields merge (null removes a key). */
export const contactUpdate = z
  .object({
    firstName: cleared(name),
    first_name: cleared(name),
    lastName: cleared(name),
    last_name: cleared(name),
    phone: cleared(phone).describe(
      'Read as the account writes numbers: with a country code, or under its default country',
    ),
    phone_number: cleared(phone),
    email: cleared(z.string().max(T.email)),
    customFields: customFields
      .optional()
      .describe("Merged into the contact's custom fields; a key given null is removed"),
    custom_fields: customFields.optional(),
    externalIds: externalIdChanges
      .optional()
      .describe(
        "By custom channel label: an ID replaces the label's, null removes it; another contact's ID is 409 CONTACT_EXISTS",
      ),
    external_ids: externalIdChanges.optional(),
  })
  // A body naming no field it knows (`{}`, or `lastname` mistyped) would change nothing and answer 200 as if it had.
  .refine(
    (b) => Object.values(b).some((v) => v !== undefined),
    'give firstName, lastName, phone, email, customFields or externalIds (or first_name, last_name, phone_number, custom_fields, external_ids)',
  )
  .superRefine(oneSpelling(...CONTACT_SPELLINGS))
  .transform((b) => ({
    firstName: b.firstName !== undefined ? b.firstName : b.first_name,
    lastName: b.lastName !== undefined ? b.lastName : b.last_name,
    phone: b.phone !== undefined ? b.phone : b.phone_number,
    email: b.email,
    customFields: b.customFields ?? b.custom_fields,
    externalIds: b.externalIds ?? b.external_ids,
  }));

/** Which contact merges into the one of the path. */
export const contactMerge = z.object({
  contactId: id.describe(
    'The other contact: its conversations, messages, lists and external IDs move here, and it is gone',
  ),
});

/** A "+" typed unencoded in a URL (`?phoneNumber=+1415…`) arrives as a space: it can only have meant the plus. */
const queryPhone = z
  .string()
  .max(40)
  .transform((v) => (/^ \d/.test(v) ? `+${v.slice(1)}` : v));

/** So does one inside an email (`?email=ana+leads@example.com` arrives as "ana leads@…"): no address holds a space. */
const queryEmail = z
  .string()
  .max(320)
  .transform((v) => v.trim().replace(/ /g, '+'));

export const contactLookup = z
  .object({
    phoneNumber: queryPhone
      .optional()
      .describe(
        'The contact with this phone number, with its country code (or of the default country); a + left unencoded is read as one',
      ),
    email: queryEmail
      .optional()
      .describe(
        'The contact with this email, whatever its case; a + left unencoded is read as one. Give exactly one of phoneNumber, email or q',
      ),
    q: z
      .string()
      .max(200, 'must be at most 200 characters')
      .refine(
        (q) => searchQuery(q) !== undefined,
        `must hold a word of ${CONTACT_SEARCH.wordMin} letters or digits or more, or the last ${CONTACT_SEARCH.phoneDigitsMin} digits or more of a phone number`,
      )
      .optional()
      .describe(
        'Search instead: contacts whose name has words starting so ("fra mil"), whose email starts so, whose phone ends with these digits ' +
          `(${CONTACT_SEARCH.phoneDigitsMin} or more), or whose external ID is this; case, accents and punctuation do not matter ("oneil" finds O'Neil). ` +
          `A phone number of fewer digits is looked for as a name or an ID. Answers a page of contacts, newest first`,
      ),
    // The paging of a search; a lookup by phoneNumber or email answers one contact and takes none.
    ...pageFields,
  })
  .refine((q) => [q.phoneNumber, q.email, q.q].filter((v) => v !== undefined).length === 1, {
    message: 'give exactly one of phoneNumber, email or q',
    path: ['phoneNumber'],
  });

export const listAdd = z
  .object({
    contactId: id.optional(),
    contact_id: id.optional(),
    delay: z
      .string()
      .max(20)
      .optional()
      .describe('Hold the opening message this long, e.g. "15m"; a message from the lead meanwhile cancels it'),
  })
  .superRefine(oneSpelling(['contactId', 'contact_id']))
  .transform((b) => ({ contactId: b.contactId ?? b.contact_id, delay: b.delay }))
  // Either spelling gives it; left out in both, it is REQUIRED as any field is.
  .refine((b) => b.contactId, { message: 'is required', path: ['contactId'], params: { field: 'REQUIRED' } });

export const listCreate = z.object({ name: nonBlank(T.name) });
/** PATCH /v1/lists/{id}: a new name, held to the rules of a new list's. */
export const listUpdate = listCreate;

const header = z.string().trim().min(1, 'must name a column of the file').max(200);
const headers = z.record(z.string().min(1).max(100), header).superRefine(atMost(MAX_CUSTOM_FIELDS, 'custom fields'));
/** The column holding the contacts' ID on each custom channel, by the channel's label: {"livechat":"Visitor ID"}. */
const labelledHeaders = z.record(label, header).superRefine(atMost(MAX_EXTERNAL_IDS, 'external IDs'));

/** Which header of the CSV holds each contact field, in the contact-create spellings; unknown fields are refused. */
const importColumns = z
  .strictObject({
    phone: header.optional(),
    phone_number: header.optional(),
    firstName: header.optional(),
    first_name: header.optional(),
    lastName: header.optional(),
    last_name: header.optional(),
    email: header.optional(),
    customFields: headers.optional(),
    custom_fields: headers.optional(),
    externalIds: labelledHeaders.optional(),
    external_ids: labelledHeaders.optional(),
  })
  .transform((c) => ({
    phone: c.phone ?? c.phone_number,
    firstName: c.firstName ?? c.first_name,
    lastName: c.lastName ?? c.last_name,
    email: c.email,
    customFields: c.customFields ?? c.custom_fields,
    externalIds: c.externalIds ?? c.external_ids,
  }))
  .refine(identifiable, { message: 'map phone, email or an external ID to a column of the file', path: ['phone'] });

export const importCreate = z
  .object({
    csv: z
      .string()
      .optional()
      .describe(
        "CSV text with a header row; a BOM, quoted fields and CRLF line ends are read. A row with text in fields past the header's is rejected (WRONG_FIELD_COUNT), as a bad phone is; empty fields past them, and fields missing at the end of a row, are read as empty",
      ),
    columns: importColumns
      .optional()
      .describe(
        'With csv: the header of the column holding each contact field, e.g. {"phone":"Phone","customFields":{"city":"City"},"externalIds":{"livechat":"Visitor ID"}}',
      ),
    delimiter: z.enum(IMPORT_DELIMITERS).default(',').describe('With csv: the field separator'),
    contacts: z
      .array(z.unknown())
      .optional()
      .describe('Instead of csv: the rows as contact objects, as POST /contacts takes them'),
    delay: z
      .string()
      .max(20)
      .optional()
      .describe('Hold the opening messages this long, e.g. "15m", as when adding a contact to the list'),
  })
  .refine((b) => (b.csv === undefined) !== (b.contacts === undefined), {
    message: 'give either csv (with columns) or contacts',
    path: ['csv'],
  })
  .refine((b) => b.csv === undefined || b.columns !== undefined, {
    message: 'name the header of each contact field with csv',
    path: ['columns'],
  })
  .refine((b) => b.csv !== undefined || b.columns === undefined, {
    message: 'columns goes with csv',
    path: ['columns'],
  });

/**
 * An attachment: a web address, or the file embedded as a data URI. A file: path, a javascript: link or plain text
 * would be stored and handed on to receivers and the console as if it were a file's address.
 */
const mediaUrl = z
  .string()
  .max(200_000_000)
  .regex(/^(?:https?|data):/i, 'must be an https:, http: or data: URL')
  .refine((v) => /^data:/i.test(v) || isWebUrl(v), 'must be an https:, http: or data: URL')
  .describe('An https: or http: URL of the file, or the file itself as data:<mime_type>;base64,<encoded_data>');

function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export const incomingMessage = z.object({
  customData: z
    .object({
      messageSid: id.optional(),
      id: id.optional(),
      fromId: id.describe("The sender's ID in the external system"),
      toId: id.describe('Business identifier'),
      body: nonBlank(10_000),
      status: text(50).optional(),
      channel: text(100).refine(ownLabel, LABEL_REFUSED).optional(),
      campaignId: id.optional(),
      firstName: name.optional(),
      lastName: name.optional(),
      email: email.optional(),
      mediaUrl: mediaUrl.nullable().optional(),
      mediaContentType: text(255).nullable().optional(),
    })
    .refine((d) => d.messageSid || d.id, { message: 'messageSid or id is required', path: ['messageSid'] })
    .refine((d) => !d.mediaUrl || d.mediaContentType, {
      message: 'mediaContentType is required with mediaUrl',
      path: ['mediaContentType'],
    })
    // What the refinement above asks, said in the published schema: a messageSid (or its older name, id) is required.
    .meta({ anyOf: [{ required: ['messageSid'] }, { required: ['id'] }] }),
  messageType: z.enum(['text', 'reaction']).optional(),
});

export const sendMessage = z.object({
  customData: z.object({
    fromId: id,
    customChannel: nonBlank(100).refine(ownLabel, LABEL_REFUSED),
    body: nonBlank(10_000),
    campaignId: id.optional(),
    firstName: name.optional(),
    lastName: name.optional(),
    email: email.optional(),
  }),
});

/**
 * Credits count in hundredths, like money, and are kept as whole hundredths, so sums never drift. A smaller or
 * finer amount is refused rather than rounded: rounding made 1e-10 a grant of 0. The check is ours, not the
 * document's `multipleOf: 0.01`: in binary floats 19.99 / 0.01 is 1998.9999999999998, so standard validators refuse
 * 19.99. An amount is in hundredths when it is the number nearest its own count of hundredths, as the store keeps it.
 */
const inHundredths = (amount: number) => Math.round(amount * 100) / 100 === amount;
const credits = z
  .number({ error: 'must be a number' })
  .min(0.01, 'must be at least 0.01')
  .max(1_000_000_000, 'must be at most 1000000000')
  .refine(inHundredths, 'must be a whole number of hundredths (at most 2 decimal places)')
  .describe(
    'Credits, to the hundredth: a number with at most two decimals (19.99), from 0.01 to 1000000000; a finer one is 400 VALIDATION_ERROR',
  );
const subAccountEmail = z.string().trim().max(T.email).min(1, 'is required');

export const creditGrant = z.object({
  email: subAccountEmail,
  amount: credits,
  description: text(T.creditDescription).optional(),
});

export const autoRecharge = z.object({
  email: subAccountEmail,
  enabled: z.boolean().default(true),
  threshold: credits,
  amount: credits,
});

export const lowBalance = z.object({
  threshold: credits
    .nullable()
    .describe('Warn the team when the balance is under this many credits; null: no such warning'),
});

export const creditUsage = z.object({ amount: credits, description: text(T.creditDescription).optional() });

/** The operator's target policy, which every URL the gateway calls for a tenant follows (checked in the domain). */
const TARGETS =
  'Follows the target policy (LEADCHAT_WEBHOOK_TARGETS): under "public" only public internet addresses; never a user name or password in it (400 TARGET_REFUSED)';

const webhookUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2000)
  .describe(TARGETS);

/**
 * A BCP 47 language tag, checked by the platform's own parser rather than a grammar of ours, and stored in its
 * canonical form ("pt-br" → "pt-BR"), the form the bot, its stemmers and WhatsApp template codes are derived from.
 */
const canonicalTag = (tag: string): string | undefined => {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined; // RangeError: not a well-formed tag
  }
};
const languageTag = text(35)
  .refine((tag) => canonicalTag(tag) !== undefined, {
    message: 'must be a BCP 47 language tag such as en, pt-BR, es-419 or zh-Hant-TW',
    abort: true,
  })
  .overwrite((tag) => canonicalTag(tag)!)
  .describe('A BCP 47 language tag such as "en", "pt-BR", "es-419" or "zh-Hant-TW"; kept in its canonical form');
/** Hours of the week in a time zone: a campaign's sendingWindow, the account's businessHours (sending-window.ts). */
const hoursOfDay = z.object({
  start: z.string().trim().max(5),
  end: z.string().trim().max(5),
  timezone: z.string().trim().max(64),
  days: z
    .array(z.string())
    .nullable()
    .optional()
    .describe(
      'The days of the week it opens on, in its time zone: mon, tue, wed, thu, fri, sat, sun, each once; left out or null: every day',
    ),
});
const WHOLE_LIMIT = `must be a whole number from 1 to ${MAX_BOT_REPLY_LIMIT}, or null for no limit`;
export const settingsUpdate = z
  .object({
    customChannelWebhookUrl: webhookUrl.nullable(),
    helpText: text(T.helpText).nullable().describe('The answer to a contact who writes HELP; null for the default'),
    handoffMessage: text(C.handoffMessage)
      .nullable()
      .describe(
        "What a contact is told at a hand-off when the campaign sets no text of its own; null: the built-in text in the account's language",
      ),
    language: languageTag.describe(
      'The language of the gateway\'s own words (the built-in hand-off notice) to a contact no campaign has; a BCP 47 tag such as "en" or "pt-BR"',
    ),
    businessHours: hoursOfDay
      .nullable()
      .describe(
        'When the team works, with the rules of a campaign\'s sendingWindow, e.g. {"start":"09:00","end":"18:00","timezone":"Europe/Paris","days":["mon","tue","wed","thu","fri"]}: a hand-off out of them tells the contact the away notice instead of the hand-off notice, and the wait before handoffReminderAfter reminds the team counts only time within them; a change times anew the contacts already waiting who were not reminded of yet. null: always open',
      ),
    awayMessage: text(C.handoffMessage)
      .nullable()
      .describe(
        "What a contact is told at a hand-off out of businessHours, instead of any hand-off notice; null: the built-in text in the campaign's or the account's language",
      ),
    handoffAssignment: z
      .enum(HANDOFF_ASSIGNMENTS)
      .describe(
        'round_robin: each hand-off assigns an unassigned conversation to the next active agent in turn (admins when there is no agent); none: nobody',
      ),
    handoffReminderAfter: z
      .string()
      .trim()
      .max(20)
      .nullable()
      .describe(
        'How long a contact handed to the team may wait for a reply (a duration from "1m" to "7d", such as "15m" or "1h") before the assignee and the whole team are reminded and a handoff_waiting event is delivered, once per wait, counted from when the wait began; a change holds for the contacts already waiting who were not reminded of yet (at once when they have waited longer); null: no reminder',
      ),
    botReplyLimit: z
      .number({ error: WHOLE_LIMIT })
      .int({ error: WHOLE_LIMIT })
      .min(1, { error: WHOLE_LIMIT })
      .max(MAX_BOT_REPLY_LIMIT, { error: WHOLE_LIMIT })
      .nullable()
      .describe(
        `The most answers the bot gives one conversation within a rolling hour, a whole number from 1 to ${MAX_BOT_REPLY_LIMIT} (30 unless changed): the answer past it is not given, and the conversation is handed to the team (reason bot_reply_limit) and the contact told a person will answer, so that a conversation that runs away (a bridge posting the bot's replies back as the contact's, two bots answering each other) does not spend the credits; a person giving the conversation back starts the count afresh. null: no limit`,
      ),
    defaultCountry: z
      .string()
      .trim()
      .toUpperCase()
      .refine(isPhoneCountry, 'must be a country code of ISO 3166-1 alpha-2, such as "US", "GB" or "DE"')
      .nullable()
      .describe(
        'The country of the phone numbers written without a country code ("(415) 555-0100" under "US" is +14155550100), wherever the account gives a phone: contacts, imports, incoming and sent messages; a number with a + is read as written. null: none, and such numbers are refused (INVALID_PHONE)',
      ),
  })
  .partial()
  .refine(
    (b) => Object.keys(b).length > 0,
    'give customChannelWebhookUrl, helpText, handoffAssignment, handoffReminderAfter, botReplyLimit, defaultCountry, handoffMessage, language, businessHours or awayMessage',
  );

export const botSettingsUpdate = z
  .strictObject({
    provider: z
      .enum(['faq', 'openai'])
      .describe(
        '"faq": the offline FAQ bot; "openai": an OpenAI-compatible endpoint, the FAQ bot answering when it fails',
      ),
    openai: z
      .strictObject({
        baseUrl: z
          .url({
            protocol: /^https?$/,
            error: 'must be an http(s) URL such as https://api.openai.com/v1 or http://localhost:11434/v1',
          })
          .max(500)
          .describe(TARGETS),
        model: nonBlank(200),
        apiKey: text(500)
          .nullable()
          .optional()
          .describe(
            'Omit to keep the saved key, with the baseUrl it was saved for only; null for none (a local Ollama needs none)',
          ),
      })
      .nullable(),
    defaultCampaignId: id.nullable().describe('The campaign whose bot answers contacts that no campaign reached yet'),
  })
  .partial()
  .refine((b) => Object.keys(b).length > 0, 'give provider, openai or defaultCampaignId');

export const botTest = z.strictObject({
  message: nonBlank(T.botTestMessage),
  history: z
    .array(z.strictObject({ from: z.enum(['contact', 'bot', 'team']), body: nonBlank(T.botTestMessage) }))
    .max(20)
    .default([])
    .describe('The conversation so far, oldest first'),
  firstName: name.nullable().default(null).describe("The contact's first name, as the bot would know it"),
});

export const webhookCreate = z.object({
  url: webhookUrl,
  events: z
    .array(z.enum(EVENTS))
    .min(1, 'name at least one event')
    .max(20)
    .transform((e) => [...new Set(e)]),
});

const faq = z.object({ question: nonBlank(C.faqQuestion), answer: nonBlank(C.faqAnswer) });
/** What the gateway does with a message before the bot reads it (engine/keywords.ts), for an FAQ asking just that. */
const NEVER_READ: Partial<Record<Intent, string>> = {
  opt_out: 'is an opt-out: a contact who writes it is opted out before the bot reads it, and never answered',
  opt_in:
    'is an opt-in (START): a contact who opted out and writes it is opted in again, and never answered by the bot',
  help: "is HELP: a contact who writes it gets the account's helpText (PUT /v1/settings), never the bot's answer",
};
/**
 * The FAQs a bot can answer from: each question once (two FAQs asking the same, in the normal form keywords are read
 * in, would have the bot ask the contact to choose between the same words), none of them a message the gateway
 * answers itself before the bot sees it (STOP, START, HELP), which the bot would never answer with it.
 */
const faqs = z
  .array(faq)
  .max(CAMPAIGN_COUNTS.faqs)
  .superRefine((list, ctx) => {
    const first = new Map<string, number>();
    list.forEach(({ question }, i) => {
      const path = [i, 'question'];
      const never = NEVER_READ[classify(question)!];
      if (never) ctx.addIssue({ code: 'custom', path, input: question, message: `${never}; ask it in other words` });
      // As the console's Save as FAQ compares them (sameQuestion): it offers no question refused here.
      const words = normalForm(question);
      // A blank question is refused as such (REQUIRED), once, not also as the same as every other blank one.
      if (!words) return;
      const before = first.get(words);
      if (before === undefined) return void first.set(words, i);
      ctx.addIssue({
        code: 'custom',
        path,
        input: question,
        message: `is asked already by bot.faqs.${before}.question ("${excerpt(list[before]!.question, 80)}"): give each question once, with one answer`,
      });
    });
  });
/** Durations ("20m") and rates ("30/m") are read by the engine, which names the field in its 400. */
const duration = z.string().trim().max(20).describe('A duration: "30s", "15m", "2h", "1d"');
const followUpStep = z.object({
  after: duration.describe('Time after the message before it'),
  body: nonBlank(C.followUpBody),
});
const campaignFields = {
  name: nonBlank(C.name),
  type: z.enum(['combined', 'outgoing', 'incoming']),
  language: languageTag,
  listId: id.nullable(),
  channel: z.enum(CAMPAIGN_CHANNELS),
  customChannel: text(C.customChannel)
    .refine(ownLabel, LABEL_REFUSED)
    .nullable()
    .describe('The custom channel label, for channel "custom"'),
  openingTemplate: text(C.templateName)
    .nullable()
    .describe('Approved WhatsApp template name (a Content SID "HX…" on Twilio)'),
  openingTemplateParams: z
    .array(text(C.templateParam))
    .max(CAMPAIGN_COUNTS.templateParams)
    .describe(
      'Body parameters {{1}}, {{2}} … of the opening template; {{first_name}} and the other contact fields are replaced',
    ),
  reengagementTemplate: text(C.templateName)
    .nullable()
    .describe(
      'Approved WhatsApp template sent instead of free text outside the 24-hour window; null: such messages are skipped',
    ),
  reengagementTemplateParams: z
    .array(text(C.templateParam))
    .max(CAMPAIGN_COUNTS.templateParams)
    .describe('Body parameters of the re-engagement template'),
  templateLanguage: z
    .string()
    .regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, 'expected a WhatsApp language code such as en or en_US')
    .nullable()
    .describe('Language code of the WhatsApp templates; null: from the campaign language'),
  openingMessage: text(C.openingMessage)
    .nullable()
    .describe('Opening text; {{first_name|there}} and the other contact fields are replaced'),
  triggerOnNewContacts: z.boolean().describe('Trigger on New Contacts Added to List'),
  status: z
    .enum(CAMPAIGN_STATUSES)
    .describe('archived: paused and put out of the lists; an archived campaign changes only by being brought back'),
  sendRate: z.string().trim().max(20).describe('Pace of queued opening messages, e.g. "30/m"'),
  sendingWindow: hoursOfDay
    .nullable()
    .describe(
      'Local hours in which messages go out, e.g. {"start":"08:00","end":"21:00","timezone":"America/New_York","days":["mon","tue","wed","thu","fri"]}',
    ),
  followUps: z.object({
    enabled: z.boolean(),
    steps: z.array(followUpStep).max(CAMPAIGN_COUNTS.followUps, `at most ${CAMPAIGN_COUNTS.followUps} follow-up steps`),
  }),
  bot: z.object({
    active: z.boolean(),
    instructions: text(C.instructions),
    companyInfo: text(C.companyInfo),
    faqs,
    resources: z.array(text(C.resource)).max(CAMPAIGN_COUNTS.resources),
    goal: text(C.goal),
    handoffMessage: text(C.handoffMessage)
      .nullable()
      .describe("What the contact is told when a person takes over; null: a default in the campaign's language"),
  }),
};
export const campaignCreate = z
  .object({
    ...campaignFields,
    type: campaignFields.type.default('combined'),
    language: campaignFields.language.default('en'),
    listId: campaignFields.listId.default(null),
    channel: campaignFields.channel.default('whatsapp'),
    customChannel: campaignFields.customChannel.default(null),
    openingTemplate: campaignFields.openingTemplate.default(null),
    openingTemplateParams: campaignFields.openingTemplateParams.default([]),
    reengagementTemplate: campaignFields.reengagementTemplate.default(null),
    reengagementTemplateParams: campaignFields.reengagementTemplateParams.default([]),
    templateLanguage: campaignFields.templateLanguage.default(null),
    openingMessage: campaignFields.openingMessage.default(null),
    triggerOnNewContacts: campaignFields.triggerOnNewContacts
      .optional()
      .describe('Trigger on New Contacts Added to List; default: on when the campaign is linked to a list'),
    status: campaignFields.status
      .exclude(['archived'], { message: 'a campaign is made draft, live or paused; archive it with PATCH' })
      .default('draft'),
    sendRate: campaignFields.sendRate.default(DEFAULT_SEND_RATE),
    sendingWindow: campaignFields.sendingWindow.default(null),
    followUps: campaignFields.followUps.partial().default({}),
    bot: campaignFields.bot.partial().default({}),
  })
  .transform((c) => ({ ...c, triggerOnNewContacts: c.triggerOnNewContacts ?? c.listId !== null }));
export const campaignUpdate = z
  .object({ ...campaignFields, bot: campaignFields.bot.partial(), followUps: campaignFields.followUps.partial() })
  .partial()
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change');

export const campaignPreview = z.object({ contactId: id });

/** POST /v1/campaigns/opening-price: an opening message as a campaign's form holds it, before it is saved. */
export const openingPriceQuote = z.object({
  channel: campaignFields.channel,
  openingMessage: campaignFields.openingMessage.default(null),
});

/** The query of a list of named records (lists, campaigns): their pages, searched by name when q is given. */
export const namedQuery = pageQuery.extend({
  q: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters')
    .optional()
    .describe('Only those whose name holds this text; case and accents do not matter'),
});

/** GET /v1/campaigns: the named query, and the one status to list; none lists every campaign but the archived. */
export const campaignListQuery = namedQuery.extend({
  status: z
    .enum(CAMPAIGN_STATUSES)
    .optional()
    .describe('Only the campaigns in this status; left out: every campaign but the archived ones'),
});

/** GET /v1/audit-log: its pages, of one action, one actor, or both. */
export const auditLogQuery = pageQuery.extend({
  action: z.enum(AUDIT_ACTIONS).optional().describe('Only the entries of this action'),
  actorId: id
    .optional()
    .describe(
      "Only the entries of this member (the owner's member id for the owner's sign-in); api_key: the API key's",
    ),
});

export const contactMessagesQuery = z.object({
  ...pageFields,
  order: z
    .enum(['asc', 'desc'])
    .default('asc')
    .describe(
      'asc: oldest first (the default); desc: newest first, each next page the messages before, as a chat reads its latest and then further back',
    ),
  conversationId: id
    .optional()
    .describe(
      "Only this conversation's messages (one of the contact's, else 400; 404 CONVERSATION_NOT_FOUND for none of the account's)",
    ),
});

export const conversationQuery = z.object({
  ...pageFields,
  status: z.enum(['active', 'handed_off', 'opted_out', 'closed']).optional(),
  campaignId: id.optional(),
  channel: z.enum(CAMPAIGN_CHANNELS).optional(),
  failed: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe('true: only conversations holding a failed outgoing message; false: only the others'),
  needsReply: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe(
      'true: only conversations that need a reply (an unread message from the contact, or theirs is the latest); false: only the others',
    ),
  reminded: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe(
      'true: only conversations whose contact still waits for a person after the team was reminded (remindedAt); false: only the others',
    ),
  snoozed: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe('true: only snoozed conversations (snoozedUntil set); false: only the others; absent: both'),
  label: conversationLabel
    .optional()
    .describe('Only the conversations carrying this label, case aside (Hot%20lead finds "hot lead" too)'),
  assigneeId: id
    .optional()
    .describe(
      "A member's id: only the conversations assigned to them; none: only the unassigned; me: only the caller's (the owner's with the API key)",
    ),
  contactId: id
    .optional()
    .describe(
      'Only the conversations of this contact, one per channel (404 CONTACT_NOT_FOUND for one the account does not have)',
    ),
});

export const memberInvite = z.object({
  email,
  name: nonBlank(T.name),
  role: z
    .enum(MEMBER_ROLES)
    .describe('admin: everything but removing the owner; agent: the inbox, contacts and lists, and reading campaigns'),
});

export const memberUpdate = z
  .object({ name: nonBlank(T.name), role: z.enum(MEMBER_ROLES) })
  .partial()
  .refine((b) => Object.keys(b).length > 0, 'give name or role');

export const memberAvailability = z.object({
  availability: z
    .enum(AVAILABILITIES)
    .describe(
      'away: round robin passes the member by, and their conversations waiting for a person are handed off anew',
    ),
});

export const assignment = z.object({
  memberId: id.nullable().describe('The member (or the owner) who takes the conversation; null: nobody'),
  expectedAssigneeId: id
    .nullable()
    .optional()
    .describe(
      'Who the caller saw having the conversation (null: nobody): the assignment is made only if they still have it, else 409 ASSIGNEE_CHANGED, so that two people taking it at once do not take it from each other',
    ),
});

/** POST /v1/conversations/{id}/labels: one label or many; those it carries already change nothing. */
export const labelsAdd = z.object({
  labels: z
    .array(conversationLabel)
    .min(1, 'must name at least one label')
    .max(MAX_LABELS, `at most ${MAX_LABELS} labels`)
    .describe(
      `The labels to add, each 1 to ${LABEL_LENGTH} characters once trimmed; a conversation carries at most ${MAX_LABELS}`,
    ),
});

/** DELETE /v1/conversations/{id}/labels/{label}: the label as the URL gives it, decoded. */
export const labelParam = z.object({ label: conversationLabel });

/** POST /v1/conversations/{id}/snooze: the route checks that the time is ahead, by the gateway's clock. */
export const snooze = z.object({
  until: z.iso
    .datetime({ offset: true })
    .describe(
      'When the conversation comes back: an ISO 8601 date-time with its offset (2027-01-05T09:00:00+01:00 or …Z), in the future and at most 365 days ahead',
    ),
});

/** POST /v1/conversations/{id}/notes: held to a team reply's rules; the route trims it. */
export const noteCreate = z.object({
  text: nonBlank(T.note).describe(`What the team should know, 1 to ${T.note} characters; seen by the team only`),
});

/**
 * POST /v1/saved-replies: a name to find it by and the text it puts in the reply box, held to a team reply's rules;
 * the route trims both.
 */
export const savedReplyCreate = z.object({
  name: nonBlank(T.savedReplyName).describe(
    `What the team finds it by in the reply box, 1 to ${T.savedReplyName} characters; unique in the account, case aside`,
  ),
  text: nonBlank(T.savedReply).describe(
    `The reply, 1 to ${T.savedReply} characters; it may hold a campaign message's placeholders ({{first_name|there}})`,
  ),
});

/** PATCH /v1/saved-replies/{id}: either field, or both. */
export const savedReplyUpdate = savedReplyCreate
  .partial()
  .refine((v) => v.name !== undefined || v.text !== undefined, 'give a name, a text, or both');

/** GET /v1/saved-replies: the named query, searching the text too. */
export const savedReplyQuery = pageQuery.extend({
  q: namedQuery.shape.q.describe('Only those whose name or text holds this text; case and accents do not matter'),
});

/** GET /v1/saved-replies/{id}: with a conversation, its text filled in for that conversation's contact. */
export const savedReplyRender = z.object({
  conversationId: id
    .optional()
    .describe("A conversation of the account: the answer's renderedText is the text filled in for its contact"),
});

export const botState = z.object({ active: z.boolean({ error: 'must be true or false' }) });

export const teamMessage = z.object({
  body: nonBlank(T.teamMessage),
  conversationId: id.optional(),
  expectedAssigneeId: id
    .nullable()
    .optional()
    .describe(
      'Who the caller saw having the conversation (null: nobody): the reply is sent only if they, or the caller, still have it, else 409 ASSIGNEE_CHANGED, so that two people answering at once do not both write to the contact',
    ),
});

/** The bodies of PUT /v1/channels/{twilio,whatsapp,messenger,instagram}, defined with the credentials they hold. */
export {
  instagramCredentials as instagramChannel,
  messengerCredentials as messengerChannel,
  twilioCredentials as twilioChannel,
  whatsAppCloudCredentials as whatsappChannel,
} from '../domain/channel-credentials.js';
import { excerpt } from '../domain/storable-text.js';

export const channelIncoming = z.object({
  phone: phone.describe("The contact's phone number, with country code"),
  body: nonBlank(4096),
  messageSid: id.optional().describe('Unique message ID; a repeated one is stored once'),
});

/** A console password: long rather than clever, and not made of spaces. */
const password = z
  .string()
  .min(12, 'must be at least 12 characters')
  .max(200)
  .refine((p) => p.replace(/\s/g, '').length >= 12, 'must hold at least 12 characters that are not spaces');

export const adminAccountCreate = z.object({
  name: nonBlank(200),
  email: email,
  type: z.enum(['agency', 'standard']).default('standard'),
  parentEmail: email.optional(),
  password: password.optional(),
});

export const passwordChange = z.object({ password });

/** The operator's view of the job queue: dead jobs by default, a page at a time. */
export const clockAdvance = z.object({
  advance: z.string().describe('How far to move the clock: a duration such as "25h"'),
});

export const jobListQuery = pageQuery.extend({ status: z.enum(['dead', 'pending', 'running']).default('dead') });

const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date YYYY-MM-DD', abort: true })
  .refine(
    (v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v),
    'is not a day of the calendar',
  );

/** The IANA time zone whose days a query's `from` and `to` name, UTC when none is given. */
const zoneOfDays = (description: string) =>
  z
    .string()
    .trim()
    .max(100)
    .default('UTC')
    .refine((v) => knownZone(v), 'must be an IANA time zone such as "America/New_York"')
    .describe(description);

/** GET /v1/campaigns/{id}/funnel: a range of days (both included) in a time zone. */
export const funnelQuery = z.object({
  from: calendarDate
    .optional()
    .describe("First day, YYYY-MM-DD; the campaign's first day by default (at most 366 days before `to`)"),
  to: calendarDate.optional().describe('Last day, YYYY-MM-DD; today by default'),
  timezone: zoneOfDays('The IANA time zone whose days are counted; UTC by default'),
});

export const unreachableQuery = z.strictObject({
  ...pageFields,
  reason: z.enum(UNREACHABLE_REASONS).optional().describe('Only the contacts not reached for this reason'),
});

export const creditsQuery = z.strictObject({
  transactions: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .default(true)
    .describe('false: the balance without its whole history (GET /credits/history pages it)'),
});

/** GET /v1/credits/history and /v1/subaccounts/{id}/credits/history: a page of entries, of one kind, over days. */
export const creditHistoryQuery = z.strictObject({
  ...pageFields,
  kind: z.enum(HISTORY_KINDS).optional().describe('Only the entries of this kind'),
  from: calendarDate
    .optional()
    .describe('Only entries of this day or after, YYYY-MM-DD in `timezone` (at most 366 days before `to`)'),
  to: calendarDate
    .optional()
    .describe('Only entries of this day or before, YYYY-MM-DD in `timezone`; today by default when `from` is given'),
  timezone: zoneOfDays('The IANA time zone whose days `from` and `to` name; UTC by default'),
});

export const unansweredQuery = z.strictObject({
  limit: z.coerce
    .number()
    .min(1, { abort: true })
    .max(100, { abort: true })
    .int()
    .default(20)
    .describe('Groups to list, largest first, 1 to 100'),
});
