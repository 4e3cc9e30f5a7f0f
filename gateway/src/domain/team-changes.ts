import type { Change, Tx } from '../store/store.js';

/**
 * What the console hears of an account's team: that a member was invited, joined, changed (away or back, a new name
 * or role) or removed, so that the Members page and the inbox's assignee picker follow at once on every open tab.
 * Who, and how, is read again (GET /v1/members).
 */
const TEAM = 'team';

export function memberChanged(tx: Tx, accountId: string): void {
  tx.publish(accountId, { kind: TEAM }, TEAM);
}

/** The stream's event for a published change: `member.updated`, or none for a change of another kind. */
export const teamEvents = (change: Change): Array<{ event: 'member.updated'; data: Record<string, never> }> =>
  change.kind === TEAM ? [{ event: 'member.updated', data: {} }] : [];
