import type { Config } from '../config.js';
import type { Gateway } from '../context.js';
import { ApiError, forbidden, notFound } from '../errors.js';
import { newId, now } from '../ids.js';
import type { Reader, Tx } from '../store/store.js';
import { findByEmail, getAccount, toCredits, type Account } from './accounts.js';
import { checkAutoRecharge, publicAutoRecharge } from './auto-recharge.js';
import type { CreditsAnswer, grant } from '../contract/credits.js';
import type { Answer } from '../contract/shared.js';

/** One line of an account's credit history. */
export interface CreditTransaction {
  id: string;
  accountId: string;
  kind: 'grant' | 'usage';
  amountCents: number;
  balanceCents: number;
  description: string | null;
  grantedBy: string | null;
  /** The message a usage entry paid for. */
  messageId?: string | null;
  createdAt: string;
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
      createdAt: now(),
    });
    await checkAutoRecharge(tx, sub.id);
    const granted: GrantResult = { success: true, sub_account_id: sub.id, credits_added: toCredits(amountCents), new_balance: toCredits(balanceCents) };
    await within(tx, granted);
    return granted;
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
    const balanceCents = await spend(tx, account, amountCents, { description: description || null, messageId: null });
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
export async function spend(tx: Tx, account: Account, amountCents: number, entry: Pick<CreditTransaction, 'description' | 'messageId'>): Promise<number | undefined> {
  // Spends and grants of one balance take turns on it.
  const fresh = await tx.lock<Account>('accounts', account.id);
  if (!fresh) throw notFound('Account');
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
    createdAt: now(),
    ...entry,
  });
  await checkAutoRecharge(tx, account.id);
  return balanceCents;
}

/**
 * The balance and its history; for a sub-account also what its messages cost, whether the balance pays for the
 * cheapest of them (`canSend`), and the agency that grants its credits, so the team knows why bot replies fail and
 * whom to ask.
 */
export async function creditsOf(r: Reader, accountId: string, prices: Config['prices']): Promise<CreditsAnswer> {
  const fresh = await getAccount(r, accountId);
  const history = await r.find<CreditTransaction>('transactions', 'account', [accountId], { order: 'desc' });
  const agency = fresh.parentId ? await r.get<Account>('accounts', fresh.parentId) : undefined;
  const cheapest = Math.min(...Object.values(prices).filter((cents) => cents > 0));
  return {
    balance: toCredits(fresh.balanceCents),
    ...(fresh.parentId
      ? {
        autoRecharge: publicAutoRecharge(fresh.autoRecharge),
        prices: { botReply: toCredits(prices.botReply), smsSegment: toCredits(prices.smsSegment), whatsapp: toCredits(prices.whatsapp) },
        canSend: !Number.isFinite(cheapest) || fresh.balanceCents >= cheapest,
        agency: agency ? { name: agency.name, email: agency.email } : null,
      }
      : {}),
    transactions: history.map((t) => ({
        id: t.id,
        kind: t.kind,
        amount: toCredits(t.amountCents),
        balance: toCredits(t.balanceCents),
        description: t.description,
        messageId: t.messageId ?? null,
        createdAt: t.createdAt,
      })),
  };
}
