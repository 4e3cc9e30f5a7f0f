import type { Gateway } from '../context.js';
import { ApiError, badRequest, notFound } from '../errors.js';
import { newId, now } from '../ids.js';
import type { Reader, Tx } from '../store/store.js';
import type { Availability, HandoffAssignment, SendingWindow } from '../api-contract.js';
import type { ChannelCredentials } from './channel-credentials.js';
import type { ReplacedSecret } from './signing-secrets.js';
import { audit, type AuditBy } from './audit-log.js';
import { digest, hashPassword, newApiKey, newWebhookSecret, sameDigest } from './secrets.js';

/**
 * Auto-recharge (spec §6.2): an agency sets, per sub-account, a threshold and an amount. When the
 * sub-account's balance is below the threshold, the agency's `auto_recharge` subscribers get one request (event) with
 * an idempotency_key; they take payment and grant the amount with that key. The rule re-arms once the balance is
 * back at or above the threshold, so one shortfall makes one request, however often the balance is looked at; a
 * request no receiver took is asked again, and saving the rule asks afresh (domain/auto-recharge.ts), each time
 * with the next key.
 */
export interface AutoRecharge {
  enabled: boolean;
  thresholdCents: number;
  amountCents: number;
  /** Requests made so far: the sequence behind each idempotency_key. */
  sequence: number;
  /**
   * True from a request until the balance is back at or above the threshold, the rule is saved again, or the
   * request, taken by no receiver, is asked again.
   */
  pending: boolean;
}

/** The account's bot provider: the offline FAQ bot, or an OpenAI-compatible endpoint; and its default campaign. */
export interface BotSettings {
  provider: 'faq' | 'openai';
  openai: { baseUrl: string; model: string; apiKey: string | null } | null;
  defaultCampaignId: string | null;
}

export interface Account {
  id: string;
  name: string;
  email: string;
  type: 'agency' | 'standard';
  parentId: string | null;
  apiKeyHash: string;
  passwordHash?: string;
  webhookSecret: string;
  /** Secrets rotations replaced, newest first, each signing beside webhookSecret until its time; none when unset. */
  replacedWebhookSecrets?: ReplacedSecret[];
  customChannelWebhookUrl: string | null;
  /** The answer to HELP; a default when unset. */
  helpText?: string | null;
  /** What a contact is told at a hand-off when the campaign sets no text of its own; the built-in text when unset. */
  handoffMessage?: string | null;
  /** BCP 47: the language of the gateway's own words to contacts where no campaign names one; English when unset. */
  language?: string | null;
  /** Credit balance in hundredths, so sums never drift. */
  balanceCents: number;
  /** Twilio and WhatsApp Cloud API credentials; SMS and WhatsApp run on the offline log provider without them. */
  channels?: ChannelCredentials;
  /** The bot provider and default campaign; the FAQ bot and none when unset. */
  bot?: BotSettings;
  /** The owner's own name on their replies and in the team; the account's name when unset. */
  ownerName?: string | null;
  /** The owner's availability (their member record's, for the owner has none); available when unset. */
  ownerAvailability?: Availability;
  /** Who a hand-off assigns its conversation to; 'none' when unset. */
  handoffAssignment?: HandoffAssignment;
  /** How long a contact waits for a person before the team is reminded ("15m"); the default when unset, off when null. */
  handoffReminderAfter?: string | null;
  /** When the team works (a window as a campaign's sendingWindow); always, when unset or null. */
  businessHours?: SendingWindow | null;
  /**
   * How many changes of handoffReminderAfter or businessHours have had the waits' reminders timed anew (0 when unset):
   * a walk timing them under one stops once a later one has begun (engine/handoff-reminder-times.ts).
   */
  remindersRetimed?: number;
  /** What a contact is told at a hand-off out of business hours; the built-in text when unset. */
  awayMessage?: string | null;
  /** The most answers the bot gives one conversation within an hour; the default when unset, no limit when null. */
  botReplyLimit?: number | null;
  /** ISO 3166-1 alpha-2: the country whose national phone numbers (no +) the account writes; none when unset. */
  defaultCountry?: string | null;
  /** The balance (hundredths) under which the team is warned; none when unset or null. */
  lowBalanceThresholdCents?: number | null;
  /** Sub-accounts only: the agency's auto-recharge rule. */
  autoRecharge?: AutoRecharge;
  createdAt: string;
}

export interface NewAccount {
  name: string;
  email: string;
  type: 'agency' | 'standard';
  parentEmail?: string;
  password?: string;
}

/** Creates an account and returns it with its first API key, which is shown this once and stored only hashed. */
export async function createAccount(gw: Gateway, input: NewAccount): Promise<{ account: Account; apiKey: string }> {
  // Sub-accounts are one level deep: an agency's credits, grants and auto-recharge all assume it has no parent.
  if (input.type === 'agency' && input.parentEmail) {
    throw badRequest(
      'parentEmail: an agency cannot be a sub-account; give no parentEmail, or create a standard account',
      'AGENCY_CANNOT_HAVE_PARENT',
    );
  }
  const apiKey = newApiKey();
  const email = input.email.toLowerCase();
  // Derived before the transaction: its time is the hashing pool's, not the store's.
  const passwordHash = input.password ? await hashPassword(input.password) : undefined;
  const account = await gw.store.transact(async (tx) => {
    if (await findByEmail(tx, email)) {
      throw new ApiError(409, 'EMAIL_TAKEN', `An account with email ${email} exists`);
    }
    let parentId: string | null = null;
    if (input.parentEmail) {
      const parent = await findByEmail(tx, input.parentEmail);
      if (!parent) throw badRequest(`parentEmail: no account with email ${input.parentEmail}`, 'PARENT_NOT_FOUND');
      if (parent.type !== 'agency') throw badRequest('parentEmail: that account is not an agency', 'PARENT_NOT_AGENCY');
      parentId = parent.id;
    }
    return tx.insert<Account>('accounts', {
      ...newAccountDoc({ name: input.name, email, type: input.type, parentId, apiKeyHash: digest(apiKey) }),
      ...(passwordHash ? { passwordHash } : {}),
    });
  });
  return { account, apiKey };
}

/** A new account's document: its own webhook secret, no credits, no custom-channel URL yet. */
export function newAccountDoc(fields: Pick<Account, 'name' | 'email' | 'type' | 'parentId' | 'apiKeyHash'>): Account {
  return {
    id: newId('acc'),
    ...fields,
    webhookSecret: newWebhookSecret(),
    customChannelWebhookUrl: null,
    balanceCents: 0,
    createdAt: now(),
  };
}

/** Issues a new API key; the previous one stops working as soon as this commits. */
export async function rotateApiKey(gw: Gateway, accountId: string, by?: AuditBy): Promise<string> {
  const apiKey = newApiKey();
  await gw.store.transact(async (tx) => {
    await getAccount(tx, accountId);
    await tx.update<Account>('accounts', accountId, { apiKeyHash: digest(apiKey) });
    await audit(tx, by, 'api_key.rotated', null);
  });
  return apiKey;
}

export async function findByApiKey(gw: Gateway, apiKey: string): Promise<Account | undefined> {
  const hash = digest(apiKey);
  const [account] = await gw.store.find<Account>('accounts', 'apiKeyHash', [hash]);
  return account && sameDigest(account.apiKeyHash, hash) ? account : undefined;
}

export async function findByEmail(r: Reader, email: string): Promise<Account | undefined> {
  return (await r.find<Account>('accounts', 'email', [email.trim().toLowerCase()]))[0];
}

export async function getAccount(r: Reader, id: string): Promise<Account> {
  const account = await r.get<Account>('accounts', id);
  if (!account) throw notFound('Account');
  return account;
}

/**
 * The account as it is now, held until the transaction ends: spends and grants of one balance take turns on it, and
 * what the caller reads after it (what the balance is owed for) is read as of the same balance.
 */
export async function lockAccount(tx: Tx, id: string): Promise<Account> {
  const account = await tx.lock<Account>('accounts', id);
  if (!account) throw notFound('Account');
  return account;
}

export const toCredits = (cents: number) => cents / 100;

export function publicAccount(a: Account) {
  return { id: a.id, name: a.name, email: a.email, type: a.type, parentId: a.parentId, createdAt: a.createdAt };
}
