import type { Change, Tx } from '../store/store.js';

/**
 * What the console hears of an account's business hours: that they (or its reminders, which wait for them) were set,
 * changed or taken off, so the inbox's status of them follows at once on every open tab. Which hours, and whether the
 * team is out, is read again.
 */
const HOURS = 'hours';

export function hoursChanged(tx: Tx, accountId: string): void {
  tx.publish(accountId, { kind: HOURS }, HOURS);
}

/** The stream's event for a published change: `hours.updated`, or none for a change of another kind. */
export const hoursEvents = (change: Change): Array<{ event: 'hours.updated'; data: Record<string, never> }> =>
  change.kind === HOURS ? [{ event: 'hours.updated', data: {} }] : [];
