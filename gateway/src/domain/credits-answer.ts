import type { Config } from '../config.js';
import type { CreditsAnswer } from '../contract/credits.js';
import type { Store } from '../store/store.js';
import { getAccount, toCredits, type Account } from './accounts.js';
import { publicAutoRecharge } from './auto-recharge.js';
import { wholeHistory } from './credit-history.js';
import { isLow, publicEntry } from './credits.js';

/**
 * The balance and its history; for a sub-account also what its messages cost, whether the balance pays for the
 * cheapest of them (`canSend`), and the agency that grants its credits, so the team knows why bot replies fail and
 * whom to ask. The history is the lines GET /v1/credits/history pages, every one of them (an agency's grants to its
 * sub-accounts among them), so that the two never disagree. Without `transactions` it is not read: a sub-account
 * that has sent for months holds more entries than a balance shown on every page should carry.
 */
export async function creditsOf(
  store: Store,
  accountId: string,
  prices: Config['prices'],
  { transactions = true }: { transactions?: boolean } = {},
): Promise<CreditsAnswer> {
  const fresh = await getAccount(store, accountId);
  const history = transactions ? await wholeHistory(store, fresh) : undefined;
  const agency = fresh.parentId ? await store.get<Account>('accounts', fresh.parentId) : undefined;
  const cheapest = Math.min(...Object.values(prices).filter((cents) => cents > 0));
  const threshold = fresh.lowBalanceThresholdCents ?? null;
  return {
    balance: toCredits(fresh.balanceCents),
    lowBalanceThreshold: threshold === null ? null : toCredits(threshold),
    lowBalance: isLow(fresh),
    ...(fresh.parentId
      ? {
          autoRecharge: publicAutoRecharge(fresh.autoRecharge),
          prices: {
            botReply: toCredits(prices.botReply),
            smsSegment: toCredits(prices.smsSegment),
            whatsapp: toCredits(prices.whatsapp),
            messenger: toCredits(prices.messenger),
            instagram: toCredits(prices.instagram),
          },
          canSend: !Number.isFinite(cheapest) || fresh.balanceCents >= cheapest,
          agency: agency ? { name: agency.name, email: agency.email } : null,
        }
      : {}),
    ...(history && { transactions: history.map(({ doc }) => publicEntry(doc)) }),
  };
}
