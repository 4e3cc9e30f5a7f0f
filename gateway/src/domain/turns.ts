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

/** The account's turn, held until the transaction commits: who took the last hand-off, and how to record the next. */
export interface HeldTurn {
  /** Who took the last hand-off; undefined: nobody yet. */
  last: string | null | undefined;
  record(lastMemberId: string | null): Promise<void>;
}

/**
 * Holds the account's turn. Whether it is recorded anew or changed is decided by this locked read alone: a turn
 * another transaction records meanwhile makes this one's insert conflict, and the transaction runs again reading it
 * locked, where a second, unlocked read would see it and overwrite it with the same member.
 */
export async function holdTurn(tx: Tx, accountId: string): Promise<HeldTurn> {
  const turn = await tx.lock<Turn>('assignment_turns', accountId);
  return {
    last: turn?.lastMemberId,
    record: async (lastMemberId) => {
      if (turn) await tx.update<Turn>('assignment_turns', accountId, { lastMemberId, at: now() });
      else await tx.insert<Turn>('assignment_turns', { id: accountId, lastMemberId, at: now() });
    },
  };
}

/**
 * A member leaves the team: when the last hand-off was theirs, it counts as taken by whoever joined just before them
 * (`joinedBefore`), so the one who joined after them is next, as they would have been, and nobody is skipped.
 */
export async function leaveTurn(tx: Tx, accountId: string, memberId: string, joinedBefore: string | null) {
  const turn = await holdTurn(tx, accountId);
  if (turn.last === memberId) await turn.record(joinedBefore);
}
