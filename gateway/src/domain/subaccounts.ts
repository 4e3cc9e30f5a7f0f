import type { Config } from '../config.js';
import { forbidden, notFound } from '../errors.js';
import type { Page, Reader, Store } from '../store/store.js';
import { toCredits, type Account } from './accounts.js';
import { publicAutoRecharge } from './auto-recharge.js';
import { creditsOf } from './credits-answer.js';
import { historyPage, type HistoryFilter, type PageRequest } from './credit-history.js';
import type { subAccount } from '../contract/credits.js';
import type { Answer } from '../contract/shared.js';

/**
 * What an agency sees of its sub-accounts (spec §2.7): each one's balance and auto-recharge rule, and its credit
 * history. Only an agency asks; another agency's sub-account answers exactly like a missing one.
 */
export function requireAgency(account: Account): void {
  if (account.type !== 'agency') throw forbidden('NOT_AGENCY', 'Only agency accounts have sub-accounts');
}

export const publicSubAccount = (a: Account): Answer<typeof subAccount> => ({
  id: a.id,
  name: a.name,
  email: a.email,
  balance: toCredits(a.balanceCents),
  autoRecharge: publicAutoRecharge(a.autoRecharge),
  createdAt: a.createdAt,
});

/** The agency's sub-accounts, oldest first. */
export function subAccountsOf(r: Reader, agency: Account, page?: Page): Promise<Account[]> {
  requireAgency(agency);
  return r.find<Account>('accounts', 'parentId', [agency.id], page);
}

/** One of the agency's own sub-accounts; another agency's answers exactly like a missing one. */
async function subAccountOf(r: Reader, agency: Account, subId: string): Promise<Account> {
  requireAgency(agency);
  const sub = await r.get<Account>('accounts', subId);
  if (!sub || sub.parentId !== agency.id) throw notFound('Sub-account');
  return sub;
}

/** A sub-account's balance, auto-recharge rule and credit history: what GET /v1/credits shows the sub-account itself. */
export async function subAccountCredits(
  r: Store,
  agency: Account,
  subId: string,
  prices: Config['prices'],
  options?: { transactions?: boolean },
) {
  return creditsOf(r, (await subAccountOf(r, agency, subId)).id, prices, options);
}

/**
 * A sub-account's credit history a page at a time, as GET /v1/credits/history shows it to the sub-account: a
 * sub-account that has sent for months holds more entries than one answer should carry.
 */
export async function subAccountHistory(
  store: Store,
  agency: Account,
  subId: string,
  filter: HistoryFilter,
  page: PageRequest,
) {
  return historyPage(store, await subAccountOf(store, agency, subId), filter, page);
}
