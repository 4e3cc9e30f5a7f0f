import type { Change, Tx } from '../store/store.js';

/**
 * What the console hears of a campaign: that whether its bot answers changed (its bot switched on or off, the
 * campaign paused or Live again), told once per transaction. No conversation is written then, yet each of the
 * campaign's conversations that needs a reply waits for a person, or no longer does (conversations.ts, botAnswers):
 * whoever counts them reads them again through /v1.
 */
const CAMPAIGN = 'campaign';

export function campaignAnsweringChanged(tx: Tx, accountId: string, campaignId: string): void {
  tx.publish(accountId, { kind: CAMPAIGN, campaignId }, `${CAMPAIGN}:${campaignId}`);
}

/** The stream's event for a published change: `campaign.updated`, or none for a change of another kind. */
export const campaignEvents = (change: Change): Array<{ event: 'campaign.updated'; data: { campaignId: string } }> =>
  change.kind === CAMPAIGN && typeof change.campaignId === 'string'
    ? [{ event: 'campaign.updated', data: { campaignId: change.campaignId } }]
    : [];
