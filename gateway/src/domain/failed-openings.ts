import type { Reader, Tx } from '../store/store.js';
import type { Message } from './messages.js';
import { openingMessageChanged } from './openings.js';

/**
 * A campaign's opening messages that failed and are still failed (no credits, no receiver, the channel refused
 * them): one document per such message, its id the message's, written in the commit that fails it and removed in
 * the one that sends it again (a retry). The campaign's page counts them and retries them.
 */
export interface FailedOpening {
  id: string;
  accountId: string;
  campaignId: string;
  errorCode: string | null;
  failedAt: string;
}

/** A campaign's opening message (a follow-up or a reply is not). */
export const isOpening = (m: Message): m is Message & { campaignId: string } =>
  m.author === 'campaign' && m.campaignId !== null && m.direction === 'outgoing';

/**
 * Called wherever a message's status changes (domain/message-status-change.ts): `before` as it was, `after` as written. The
 * opening reads failed with its message, and sent again with it.
 */
export async function openingStatusChanged(tx: Tx, before: Message, after: Message): Promise<void> {
  if (!isOpening(after) || before.status === after.status) return;
  if (after.status === 'failed' || before.status === 'failed') await openingMessageChanged(tx, after);
  if (after.status === 'failed') await countFailedOpening(tx, after);
  else if (before.status === 'failed' && (await tx.get('failed_openings', after.id)))
    await tx.remove('failed_openings', after.id);
}

/** A failed opening among its campaign's failed openings, once. */
export async function countFailedOpening(tx: Tx, message: Message & { campaignId: string }): Promise<void> {
  if (await tx.get('failed_openings', message.id)) return;
  await tx.insert<FailedOpening>('failed_openings', {
    id: message.id,
    accountId: message.accountId,
    campaignId: message.campaignId,
    errorCode: message.errorCode,
    failedAt: message.updatedAt,
  });
}

/** How far a campaign's failed openings are counted: past it the page says "1,000 or more". */
export const FAILED_COUNTED = 1000;

/** The campaign's failed openings, oldest first (at most `limit`). */
export const failedOpeningsOf = (r: Reader, campaignId: string, limit = FAILED_COUNTED) =>
  r.find<FailedOpening>('failed_openings', 'campaign', [campaignId], { limit });

/** How many of the campaign's openings are failed now, in all and by error code (up to FAILED_COUNTED). */
export async function countFailedOpenings(
  r: Reader,
  campaignId: string,
): Promise<{ count: number; more: boolean; byCode: Record<string, number> }> {
  const found = await failedOpeningsOf(r, campaignId, FAILED_COUNTED + 1);
  const counted = found.slice(0, FAILED_COUNTED);
  const byCode: Record<string, number> = {};
  for (const f of counted) byCode[f.errorCode ?? 'UNKNOWN'] = (byCode[f.errorCode ?? 'UNKNOWN'] ?? 0) + 1;
  return { count: counted.length, more: found.length > FAILED_COUNTED, byCode };
}

/** An erased contact's failed openings are counted no more: its messages are gone. */
export async function forgetFailedOpening(tx: Tx, messageId: string): Promise<void> {
  if (await tx.get('failed_openings', messageId)) await tx.remove('failed_openings', messageId);
}
