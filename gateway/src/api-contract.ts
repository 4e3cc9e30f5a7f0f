/**
 * The API's limits, the words of its values, and what a 400 says about each field, in one dependency-free module:
 * the server (domain/, http/schemas.ts, contract/) and the console (client/) compile against the same definitions,
 * so the two cannot drift. The answers' shapes are the contract's (contract/*.ts). Nothing here may import
 * anything: the browser bundle compiles it too.
 */

/** The longest texts, in characters, a campaign's settings take (POST and PATCH /v1/campaigns). */
export const CAMPAIGN_LIMITS = {
  name: 200,
  customChannel: 100,
  templateName: 100,
  templateParam: 1000,
  openingMessage: 2000,
  followUpBody: 2000,
  instructions: 10_000,
  companyInfo: 10_000,
  faqQuestion: 1000,
  faqAnswer: 5000,
  resource: 2000,
  goal: 1000,
  handoffMessage: 1000,
} as const;

/** How many of each repeated setting a campaign takes. */
export const CAMPAIGN_COUNTS = {
  templateParams: 20,
  followUps: 5,
  faqs: 200,
  resources: 100,
} as const;

/** The longest texts of the other bodies the console sends. */
export const TEXT_LIMITS = {
  /** A contact's first or last name, a list's name, an account's name. */
  name: 200,
  email: 320,
  phone: 40,
  /** A custom channel's label, as a key of externalIds. */
  channelLabel: 100,
  helpText: 1000,
  creditDescription: 500,
  botTestMessage: 4000,
  teamMessage: 4096,
  /** A note the team leaves on a conversation: as long as a team reply may be. */
  note: 4096,
  /** A saved reply's name, as the picker of the reply box lists it: short enough to read at a glance. */
  savedReplyName: 80,
  /** A saved reply's text: what it puts in the reply box, as long as a team reply may be. */
  savedReply: 4096,
} as const;

/**
 * Saved replies an account keeps: many more than a team types often (Chatwoot and Front set no lower bound), while a
 * reply box's picker reads them all and a loop that saves without end is stopped.
 */
export const MAX_SAVED_REPLIES = 1000;

/**
 * What the account's audit log records (GET /v1/audit-log), each a change an owner or admin may need to trace back
 * to who made it and when: the words of `?action=` and of the console's Activity filter.
 */
export const AUDIT_ACTIONS = [
  'settings.changed',
  'custom_channel.webhook_url_set',
  'webhook_secret.rotated',
  'api_key.rotated',
  'member.invited',
  'member.reinvited',
  'member.changed',
  'member.removed',
  'channel.credentials_set',
  'channel.credentials_removed',
  'webhook.created',
  'webhook.deleted',
  'campaign.created',
  'campaign.changed',
  'campaign.archived',
  'list.deleted',
  'list.exported',
  'contact.exported',
  'contact.erased',
  'contact.merged',
  'subaccount.deleted',
  'console.signed_in',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** How long the audit log keeps an entry: a year, as Slack's and GitHub's own logs show by default. */
export const AUDIT_LOG_DAYS = 365;

/** How many custom fields a contact holds, and so how many columns an import maps to them. */
export const MAX_CUSTOM_FIELDS = 50;

/** How many external IDs (custom channel labels) a contact holds. */
export const MAX_EXTERNAL_IDS = 20;

/**
 * Webhook subscriptions an account may hold: many more than its workflows need (Stripe allows 16 endpoints), while
 * every event reads them all and a loop that subscribes without end is stopped. The console reads them in one page.
 */
export const MAX_WEBHOOKS = 50;

/** The field separators a CSV import takes (`delimiter` of POST /v1/lists/{id}/imports). */
export const IMPORT_DELIMITERS = [',', ';', '\t', '|'] as const;
/**
 * The columns of a list's export (GET /v1/lists/{id}/export) holding the contact's own fields, named as the console's
 * import finds them without being told: an exported file imports back into another list as it is.
 */
export const EXPORT_COLUMNS = ['Phone', 'First name', 'Last name', 'Email'] as const;
/** The export's column of a contact's ID on a custom channel, by the channel's label. */
export const externalIdColumn = (label: string) => `External ID (${label})`;
/** Read back from an export's column header: the channel label it holds the IDs of. */
export const EXTERNAL_ID_COLUMN = /^External ID \((.+)\)$/;
/**
 * The export's columns of facts about the contact in the list, for a spreadsheet: not contact fields, so an import
 * leaves them out (the console offers them as no custom field; the API reads only the columns it is given).
 */
export const EXPORT_READ_ONLY_COLUMNS = ['Contact ID', 'Added to list', 'Opted out'] as const;
/**
 * Excel's first line naming a file's separator (`sep=;`), which Excel reads as such and does not show: the file is
 * read with it, and the line is no row. Its one group is the separator.
 */
export const SEPARATOR_LINE = /^\ufeff?sep=(.)(?:\r\n|\n|\r|$)/i;

/**
 * The largest file POST /v1/lists/{id}/imports takes, in bytes: its CSV text in UTF-8 (a CSV of many thousand rows),
 * or its contact objects as JSON.
 */
export const IMPORT_MAX_BYTES = 20 * 1024 * 1024;

/**
 * The largest body of an import: the file's CSV text as a JSON string takes two bytes for each quote mark, line end
 * and tab, which a file quoting every field (Outlook's, a CRM's) is full of; its size is held to IMPORT_MAX_BYTES
 * once read, so that the limit is the file's, as a user sees its size.
 */
export const IMPORT_MAX_BODY_BYTES = 2 * IMPORT_MAX_BYTES + 1024 * 1024;

/** A team member's role; the account's owner is the one `owner`, and every other member is an admin or an agent. */
export const MEMBER_ROLES = ['admin', 'agent'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];
export type Role = 'owner' | MemberRole;

/** Whether a member is there to take hand-offs: an away one is skipped by round robin and is told so in the console. */
export const AVAILABILITIES = ['available', 'away'] as const;
export type Availability = (typeof AVAILABILITIES)[number];

const ROLE_RANK: Record<Role, number> = { agent: 1, admin: 2, owner: 3 };

/** Whether a role may do what `least` may: the owner all an admin may, an admin all an agent may. */
export const canAct = (role: Role, least: Role): boolean => ROLE_RANK[role] >= ROLE_RANK[least];

/** The console page an invitation's link opens (`<base>/console/invite#<token>`): the token rides in the fragment. */
export const INVITE_PATH = '/console/invite';

/** Who a hand-off assigns its conversation to: nobody, or the account's next active agent in turn. */
export const HANDOFF_ASSIGNMENTS = ['none', 'round_robin'] as const;
export type HandoffAssignment = (typeof HANDOFF_ASSIGNMENTS)[number];

/**
 * Why a conversation was handed to a person: the contact asked, a team member took over, no campaign's bot answers
 * the contact, the bot could not answer (not confident, no FAQs to answer from, an LLM's own call), or the account
 * had no credits to pay for the bot's answer, or the bot's answer was longer than the channel takes in a message, or
 * the contact sent a file with no text, which the bot cannot read, or the bot had answered the conversation as many
 * times within an hour as the account allows (a conversation that ran away: botReplyLimit of /v1/settings).
 */
export const HANDOFF_REASONS = [
  'contact_asked',
  'team',
  'no_campaign',
  'bot_not_confident',
  'bot_no_knowledge',
  'bot_handoff',
  'no_credits',
  'answer_too_long',
  'file_only',
  'reply_failed',
  'bot_reply_limit',
] as const;
export type HandoffReason = (typeof HANDOFF_REASONS)[number];

/**
 * The countries a default country (defaultCountry of /v1/settings) may be: ISO 3166-1 alpha-2 codes of every
 * numbering plan the gateway reads phone numbers of (libphonenumber's regions, which add AC, TA and XK).
 */
export const PHONE_COUNTRIES: readonly string[] = (
  'AC AD AE AF AG AI AL AM AO AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BW BY BZ CA ' +
  'CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GT GU GW GY HK HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
  'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR ' +
  'MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PR PS PT PW PY QA RE RO ' +
  'RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TA TC TD TG TH TJ TK TL TM TN TO TR TT ' +
  'TV TW TZ UA UG US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW'
).split(' ');

/**
 * What a contact search (GET /v1/contacts?q=) needs to look for something: a word of `wordMin` letters or digits
 * (punctuation aside), or `phoneDigitsMin` of a phone's last digits. A query typed as a phone number with fewer
 * digits is still looked for, as a name or an ID made of them, never as a phone's end.
 */
export const CONTACT_SEARCH = { wordMin: 2, phoneDigitsMin: 4 } as const;

/** The digits of a query typed as a phone number (digits with +, spaces, brackets, dots or dashes), else null. */
export function phoneDigitsOf(q: string): string | null {
  return /^\+?[\d\s().-]+$/.test(q.trim()) ? q.replace(/\D/g, '') : null;
}

/** The most items one page of a list answers (`limit`). */
export const MAX_PAGE_LIMIT = 200;

/** An import's report lists at most this many rejected rows, and as many rows imported with a warning. */
export const MAX_ERRORS = 1_000;

/** A 400 names at most this many problems; the message says how many more there were. */
export const MAX_PROBLEMS = 10;

/** The strong ETag of a record's `version` (a campaign's), as its answers carry it and If-Match takes it back. */
export const etagOf = (version: number): string => `"${version}"`;

/**
 * One problem with one field of a request, as a 400 lists them in `error.fields`. `field` is the field's path in
 * the body, with array indexes from 0 ("bot.faqs.4.answer"); `code` is one of
 *   REQUIRED      missing, null or blank where a value is needed
 *   TOO_LONG      a text longer than `limit` characters (TOO_SHORT: shorter)
 *   TOO_MANY      a list with more than `limit` entries (TOO_FEW: fewer)
 *   TOO_BIG       a number above `limit` (TOO_SMALL: below)
 *   INVALID       any other bad value; `message` says what is expected
 * or the code of a rule that names its field, such as INVALID_DURATION or CAMPAIGN_CANNOT_SEND. `message` reads
 * on from the field's name ("must be …") or stands alone.
 */
export interface FieldProblem {
  field: string;
  code: string;
  message: string;
  limit?: number;
}

/** A follow-up: its text, and how long after the message before it ("20m", "1d") it goes. */
export interface FollowUpStep {
  after: string;
  body: string;
}

/** The channels a campaign works on: the four built-in ones, or a custom channel. */
/**
 * A campaign's states: Live sends and answers; paused holds what it would send and leaves its conversations to people;
 * archived is a paused campaign put out of the lists, which holds no list (spec §2.3 shows only Live ones).
 */
export const CAMPAIGN_STATUSES = ['draft', 'live', 'paused', 'archived'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const CAMPAIGN_CHANNELS = ['whatsapp', 'sms', 'messenger', 'instagram', 'custom'] as const;
export type CampaignChannel = (typeof CAMPAIGN_CHANNELS)[number];
/** The built-in channels: SMS and WhatsApp reach a phone number; Messenger and Instagram a Meta user's id. */
export type BuiltInChannel = Exclude<CampaignChannel, 'custom'>;
/** Whether a message's channel is a built-in one (a custom channel's messages name theirs). */
export const isBuiltIn = (channel: string | null): channel is BuiltInChannel =>
  channel !== 'custom' && (CAMPAIGN_CHANNELS as readonly string[]).includes(channel ?? '');

/** Meta's platforms forbid a business to write first: a campaign there answers the contacts who write. */
export const ANSWER_ONLY_CHANNELS = ['messenger', 'instagram'] as const;
export type MetaChannel = (typeof ANSWER_ONLY_CHANNELS)[number];
export const answersOnly = (channel: string | null): channel is MetaChannel =>
  (ANSWER_ONLY_CHANNELS as readonly string[]).includes(channel ?? '');

/**
 * WhatsApp's customer-service window (and Meta's messaging window): free text may go to a contact only this long after
 * their last message. The engine holds messages to it; the console says until when a reply can go.
 */
export const SERVICE_WINDOW_MS = 24 * 3_600_000;

/** The days of the week a sending window names, in the week's order (Monday first), as the API writes them. */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/**
 * When opening messages may go: between `start` and `end` ("09:00", "18:00") in `timezone` (IANA), on `days` of that
 * zone's week (null: every day).
 */
export interface SendingWindow {
  start: string;
  end: string;
  timezone: string;
  days: Weekday[] | null;
}

/** A contact's custom fields are written into a message as `{{custom.<key>}}`. */
export const CUSTOM_PREFIX = 'custom.';

/** The funnel's steps, in order, as GET /v1/campaigns/{id}/funnel counts them. */
export const FUNNEL_STEPS = [
  'added',
  'openingSent',
  'replied',
  'handedOff',
  'optedOut',
  'goalReached',
  'failed',
] as const;
export type FunnelStep = (typeof FUNNEL_STEPS)[number];
