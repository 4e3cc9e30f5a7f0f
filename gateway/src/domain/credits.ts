import type { Gateway } from '../context.js';
import { ApiError, forbidden, notFound } from '../errors.js';
import { newId, now } from '../ids.js';
import type { Tx } from '../store/store.js';
import { findByEmail, getAccount, lockAccount, toCredits, type Account } from './accounts.js';
import { afterGrant, checkAutoRecharge } from './auto-recharge.js';
import { MESSAGE_KINDS, type creditEntry, type grant, type lowBalanceAnswer } from '../contract/credits.js';
import type { Answer } from '../contract/shared.js';
import { creditsChanged } from './credit-changes.js';
import type { Conversation } from './conversations.js';
import type { Message } from './messages.js';

/** One line of an account's credit history. */
export interface CreditTransaction {
  id: string;
  accountId: string;
  /** `returned`: in an agency's ledger, the unspent balance of a sub-account it deleted, come back to it. */
  kind: 'grant' | 'usage' | 'refund' | 'returned';
  amountCents: number;
  balanceCents: number;
  description: string | null;
  grantedBy: string | null;
  /** The message a usage entry paid for, or a refund gave back. */
  messageId?: string | null;
  /** A usage or refund entry: who wrote the message (its kind: opening, follow-up, bot reply…) and its channel's key. */
  author?: Message['author'];
  channel?: string | null;
  /** A grant that answered the sub-account's auto-recharge request (made while it was pending). */
  recharge?: boolean;
  /** A `returned` entry: the deleted sub-account whose balance it was. */
  subAccountId?: string;
  createdAt: string;
  /** The UTC day of createdAt: the history's filter by dates finds an entry by it (domain/credit-history.ts). */
  day?: string;
}

/** A line of the history: an entry of the account's ledger, or, for an agency, a grant it made (`granted`). */
export interface HistoryLine extends Omit<CreditTransaction, 'kind'> {
  kind: CreditTransaction['kind'] | 'granted';
  /** A `granted` line: the sub-account granted to, named as it is now (null once it is gone). */
  grantedTo?: { id: string; name: string | null };
}

/** The UTC day of an entry's time, the key its day indexes find it by (domain/credit-history.ts). */
export const dayOf = (createdAt: string): string => createdAt.slice(0, 10);

/** An entry's time, and its day by which a filtered history finds it. */
function dated(): Pick<CreditTransaction, 'createdAt' | 'day'> {
  const createdAt = now();
  return { createdAt, day: dayOf(createdAt) };
}

export type GrantResult = Answer<typeof grant>;

/**
 * Spec §4.6: an agency grants credits to one of its own sub-accounts. Another agency's sub-account answers
 * exactly like a missing one. Balance and ledger change in one transaction, so concurrent grants all count.
 */
export async function grantCredits(
  gw: Gateway,
  agency: Account,
  input: { email: string; amount: number; description?: string },
  /** The request's Idempotency-Key: the key of an auto-recharge request makes the grant that request's answer. */
  key: string | undefined,
  /** Runs inside the grant's transaction, e.g. to remember the response of an idempotent request. */
  within: (tx: Tx, result: GrantResult) => Promise<void> = async () => undefined,
): Promise<GrantResult> {
  if (agency.type !== 'agency') throw forbidden('NOT_AGENCY', 'Only agency accounts can grant credits to sub-accounts');
  const amountCents = Math.round(input.amount * 100);
  return gw.store.transact(async (tx) => {
    const found = await findByEmail(tx, input.email);
    // Grants and spends of one balance take turns on it.
    const sub = found && (await tx.lock<Account>('accounts', found.id));
    if (!sub || sub.parentId !== agency.id) throw notFound('Sub-account', `Sub-account ${input.email} not found`);
    const balanceCents = sub.balanceCents + amountCents;
    await tx.update<Account>('accounts', sub.id, { balanceCents });
    await tx.insert<CreditTransaction>('transactions', {
      id: newId('ctx'),
      accountId: sub.id,
      kind: 'grant',
      amountCents,
      balanceCents,
      description: input.description || null,
      grantedBy: agency.id,
      // The agency answers an auto-recharge request with a grant: the one made while it waits is that recharge.
      recharge: sub.autoRecharge?.pending === true,
      ...dated(),
    });
    await afterGrant(tx, sub.id, key);
    creditsChanged(tx, sub.id, agency.id);
    const granted: GrantResult = {
      success: true,
      sub_account_id: sub.id,
      credits_added: toCredits(amountCents),
      new_balance: toCredits(balanceCents),
    };
    await within(tx, granted);
    return granted;
  });
}

/**
 * A sub-account being deleted, in the transaction that removes it: what it had not spent comes back to its agency as
 * a `returned` line of the agency's history, naming it by id. As a grant does not debit the agency, this credits no
 * balance of the agency's: the line's balance is null, as a `granted` line's. The agency's consoles are told, with
 * credits left or none: their list of sub-accounts loses it.
 */
export async function returnUnspent(tx: Tx, sub: Account): Promise<void> {
  if (!sub.parentId) return;
  creditsChanged(tx, sub.parentId);
  if (sub.balanceCents <= 0) return;
  const agency = await tx.get<Account>('accounts', sub.parentId);
  if (!agency) return;
  await tx.insert<CreditTransaction>('transactions', {
    id: newId('ctx'),
    accountId: agency.id,
    kind: 'returned',
    amountCents: sub.balanceCents,
    balanceCents: agency.balanceCents,
    description: 'Unspent balance of a deleted sub-account',
    grantedBy: null,
    subAccountId: sub.id,
    ...dated(),
  });
}

/**
 * Records usage against an account's balance (the operator's metering). A balance never goes below zero; crossing
 * the auto-recharge threshold signals the agency.
 */
export async function useCredits(gw: Gateway, accountId: string, amount: number, description?: string) {
  const amountCents = Math.round(amount * 100);
  return gw.store.transact(async (tx) => {
    const account = await getAccount(tx, accountId);
    const balanceCents = await spend(tx, account, amountCents, {
      description: description || null,
      messageId: null,
      author: null,
      channel: null,
    });
    if (balanceCents === undefined) throw insufficientCredits(account.balanceCents, amountCents);
    return { balance: toCredits(balanceCents) };
  });
}

export const insufficientCredits = (balanceCents: number, priceCents: number) =>
  new ApiError(409, 'INSUFFICIENT_CREDITS', `Balance ${toCredits(balanceCents)} is below ${toCredits(priceCents)}`);

/**
 * Takes `amountCents` from the account in the caller's transaction, with its ledger entry; the new balance, or
 * undefined (and nothing changed) when the balance is too low.
 */
export async function spend(
  tx: Tx,
  account: Account,
  amountCents: number,
  entry: Pick<CreditTransaction, 'description' | 'messageId' | 'author' | 'channel'>,
): Promise<number | undefined> {
  const fresh = await lockAccount(tx, account.id);
  if (fresh.balanceCents < amountCents) return undefined;
  const balanceCents = fresh.balanceCents - amountCents;
  await tx.update<Account>('accounts', account.id, { balanceCents });
  await tx.insert<CreditTransaction>('transactions', {
    id: newId('ctx'),
    accountId: account.id,
    kind: 'usage',
    amountCents: -amountCents,
    balanceCents,
    grantedBy: null,
    ...dated(),
    ...entry,
  });
  await checkAutoRecharge(tx, account.id);
  // Consoles are told of a spend only while a warning shows it (not of every spend, which a busy account makes many
  // times a second): the balance is under the account's threshold, or no longer pays for another message like it.
  const threshold = fresh.lowBalanceThresholdCents ?? null;
  if ((threshold !== null && balanceCents < threshold) || balanceCents < amountCents)
    creditsChanged(tx, account.id, fresh.parentId);
  return balanceCents;
}

/**
 * Gives back, in the caller's transaction, what a message paid when the gateway withholds it before any channel took
 * it (the contact opted out while it waited for its turn or for its provider): it was never sent. A `refund` entry
 * names the message, so its usage and its refund add up to nothing; the message pays nothing any more, so nothing is
 * given back twice.
 */
export async function refund(tx: Tx, message: Message, description: string): Promise<void> {
  const paidCents = message.paidCents ?? 0;
  if (paidCents <= 0) return;
  const account = await lockAccount(tx, message.accountId);
  const balanceCents = account.balanceCents + paidCents;
  await tx.update<Account>('accounts', account.id, { balanceCents });
  await tx.update<Message>('messages', message.id, { paidCents: 0 });
  await tx.insert<CreditTransaction>('transactions', {
    id: newId('ctx'),
    accountId: account.id,
    kind: 'refund',
    amountCents: paidCents,
    balanceCents,
    description,
    grantedBy: null,
    messageId: message.id,
    author: message.author,
    channel: message.conversationId
      ? ((await tx.get<Conversation>('conversations', message.conversationId))?.channelKey ?? null)
      : null,
    ...dated(),
  });
  await checkAutoRecharge(tx, account.id);
  creditsChanged(tx, account.id, account.parentId);
}

/** Only a sub-account pays for its messages: its balance is low under the threshold it set. */
export const isLow = (a: Account) =>
  a.parentId !== null && a.lowBalanceThresholdCents != null && a.balanceCents < a.lowBalanceThresholdCents;

/**
 * A history entry as the API shows it: a grant, a recharge (a grant answering auto-recharge), a message's cost, its
 * refund, or in an agency's history a grant it made to a sub-account or a deleted sub-account's unspent balance.
 */
export function publicEntry(t: HistoryLine): Answer<typeof creditEntry> {
  const usage = t.kind === 'usage';
  const ofMessage = usage || t.kind === 'refund';
  // Older usage entries hold the message's kind only in their description ("bot message on sms").
  const described = usage && t.author === undefined ? /^(\w+) message on (.+)$/.exec(t.description ?? '') : null;
  const author = ofMessage ? (t.author ?? described?.[1] ?? null) : null;
  return {
    id: t.id,
    kind: ofMessage || t.kind === 'granted' || t.kind === 'returned' ? t.kind : t.recharge ? 'recharge' : 'grant',
    amount: toCredits(t.amountCents),
    balance: t.kind === 'granted' || t.kind === 'returned' ? null : toCredits(t.balanceCents),
    description: t.description,
    messageId: t.messageId ?? null,
    messageKind: isMessageKind(author) ? author : null,
    channel: ofMessage ? (t.channel ?? described?.[2] ?? null) : null,
    // A returned line's sub-account is gone: its id alone names it.
    subAccount: t.grantedTo ?? (t.subAccountId ? { id: t.subAccountId, name: null } : null),
    createdAt: t.createdAt,
  };
}

const isMessageKind = (a: string | null): a is (typeof MESSAGE_KINDS)[number] =>
  (MESSAGE_KINDS as readonly string[]).includes(a ?? '');

/**
 * The balance under which the account's team is warned (PUT /v1/credits/low-balance); null: no warning but the one
 * that says the balance pays for no message at all.
 */
export async function setLowBalanceThreshold(
  gw: Gateway,
  accountId: string,
  threshold: number | null,
): Promise<Answer<typeof lowBalanceAnswer>> {
  return gw.store.transact(async (tx) => {
    await getAccount(tx, accountId);
    const saved = await tx.update<Account>('accounts', accountId, {
      lowBalanceThresholdCents: threshold === null ? null : Math.round(threshold * 100),
    });
    creditsChanged(tx, accountId);
    return { balance: toCredits(saved.balanceCents), lowBalanceThreshold: threshold, lowBalance: isLow(saved) };
  });
}
