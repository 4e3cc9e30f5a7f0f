/**
 * The API's limits, in one dependency-free module: the request schemas (http/schemas.ts) enforce these numbers
 * and the console (client/) counts against them, so the two cannot drift. Nothing here may import anything: the
 * browser bundle compiles it too.
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
