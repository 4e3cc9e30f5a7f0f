import type { Gateway } from '../context.js';
import { getAccount, type Account } from './accounts.js';
import { hashPassword } from './secrets.js';
import { endOwnerSessions } from './sessions.js';

/**
 * The operator sets or resets an account's console password. Whoever was signed in with the old one is signed
 * out: a reset often follows a password that leaked.
 */
export async function setPassword(
  gw: Gateway,
  accountId: string,
  password: string,
): Promise<{ account: Account; sessionsEnded: number }> {
  const passwordHash = await hashPassword(password);
  const account = await gw.store.transact(async (tx) => {
    await getAccount(tx, accountId);
    return tx.update<Account>('accounts', accountId, { passwordHash });
  });
  return { account, sessionsEnded: await endOwnerSessions(gw, accountId) };
}
