import type { Gateway } from '../context.js';
import { getAccount, type Account } from './accounts.js';
import { hashPassword } from './secrets.js';
import { endOwnerSessionsIn } from './sessions.js';

/**
 * The operator sets or resets an account's console password. Whoever was signed in with the old one is signed
 * out, in the same commit: a reset often follows a password that leaked (see startSession for a sign-in with the
 * old one still being checked).
 */
export async function setPassword(
  gw: Gateway,
  accountId: string,
  password: string,
): Promise<{ account: Account; sessionsEnded: number }> {
  const passwordHash = await hashPassword(password);
  return gw.store.transact(async (tx) => {
    await getAccount(tx, accountId);
    const account = await tx.update<Account>('accounts', accountId, { passwordHash });
    return { account, sessionsEnded: await endOwnerSessionsIn(tx, accountId) };
  });
}
