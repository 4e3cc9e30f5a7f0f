import type { Change, Tx } from '../store/store.js';

/**
 * What the console hears of an account's credits: that they changed (a grant, a recharge, a spend that may start a
 * warning, a new threshold), told once per transaction. No amounts: whoever is told reads them through /v1.
 */
const CREDITS = 'credits';

/** A sub-account's change is told to its agency too: the agency's console shows each sub-account's balance and history. */
export function creditsChanged(tx: Tx, accountId: string, agencyId?: string | null): void {
  tx.publish(accountId, { kind: CREDITS }, CREDITS);
  if (agencyId) tx.publish(agencyId, { kind: CREDITS }, CREDITS);
}

/** The stream's event for a published change: `credits.updated`, or none for a change of another kind. */
export const creditEvents = (change: Change): Array<{ event: 'credits.updated'; data: Record<string, never> }> =>
  change.kind === CREDITS ? [{ event: 'credits.updated', data: {} }] : [];
