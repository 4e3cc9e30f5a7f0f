import { now } from '../ids.js';
import type { Tx } from '../store/store.js';

/**
 * Whose turn the next round-robin hand-off of an account is (assignment.ts takes it): one document per account, its
 * id the account's, read with `lock`, so that concurrent hand-offs and removals from the team take turns on it.
 */
interface Turn {
  id: string;
  /** Who took the last hand-off; null: nobody of the team now, so the next goes to the first in the team's order. */
  lastMemberId: string | null;
  at: string;
}

/** Who took the last hand-off (undefined: nobody yet), the turn held until the transaction commits. */
export const lastInTurn = async (tx: Tx, accountId: string): Promise<string | null | undefined> =>
  (await tx.lock<Turn>('assignment_turns', accountId))?.lastMemberId;

/** Records who took the last hand-off; the turn must be held (lastInTurn). */
export async function recordTurn(tx: Tx, accountId: string, lastMemberId: string | null): Promise<void> {
  if (await tx.get<Turn>('assignment_turns', accountId))
    await tx.update<Turn>('assignment_turns', accountId, { lastMemberId, at: now() });
  else await tx.insert<Turn>('assignment_turns', { id: accountId, lastMemberId, at: now() });
}

/**
 * A member leaves the team: when the last hand-off was theirs, it counts as taken by whoever joined just before them
 * (`joinedBefore`), so the one who joined after them is next, as they would have been, and nobody is skipped.
 */
export async function leaveTurn(tx: Tx, accountId: string, memberId: string, joinedBefore: string | null) {
  if ((await lastInTurn(tx, accountId)) === memberId) await recordTurn(tx, accountId, joinedBefore);
}
