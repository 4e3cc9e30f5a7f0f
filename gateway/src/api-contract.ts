/**
 * The API's limits and the shape of what a 400 says about each field, in one dependency-free module: the request
 * schemas (http/schemas.ts) enforce these numbers and the console (client/) counts against them, so the two
 * cannot drift. Nothing here may import anything: the browser bundle compiles it too.
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
} as const;

/** A 400 names at most this many problems; the message says how many more there were. */
export const MAX_PROBLEMS = 10;

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
