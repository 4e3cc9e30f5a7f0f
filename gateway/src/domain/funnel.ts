import type { Conversation } from './conversations.js';
import type { Reader, Tx } from '../store/store.js';
import { clockNow } from '../clock.js';
import { FUNNEL_STEPS, type FunnelStep } from '../api-contract.js';

/**
 * A campaign's funnel: the steps a sales team steers by, each counted once per contact, recorded in the transaction
 * of the change itself, so reading the funnel never walks the campaign's conversations.
 *
 * Two collections hold it:
 * - `funnel_steps`: one document per campaign, step and contact, its id made of the three, so a step reached again
 *   (a second reply, a second failed message) is found and counted no more;
 * - `funnel_counts`: per campaign and UTC day, how many contacts reached each step in each quarter hour of that day.
 *   Quarter hours let the report give days in any time zone (every zone's offset is a whole number of them). A day's
 *   counts are split over a few documents by contact, so that concurrent transactions of one campaign seldom wait
 *   for each other on one row.
 */
export { FUNNEL_STEPS, type FunnelStep };

export interface FunnelStepRecord {
  id: string;
  accountId: string;
  campaignId: string;
  contactId: string;
  step: FunnelStep;
  at: string;
}

export interface FunnelCounts {
  id: string;
  accountId: string;
  campaignId: string;
  /** The UTC month, "YYYY-MM": the report finds a range's documents by month. */
  month: string;
  /** The UTC day, "YYYY-MM-DD". */
  day: string;
  /** `${step}@${quarter}`: contacts that reached `step` in quarter hour `quarter` (0 to 95) of the day, UTC. */
  counts: Record<string, number>;
}

export const QUARTER_MS = 15 * 60_000;
export const DAY_MS = 24 * 60 * 60_000;
/** How many documents a campaign's day is split over. */
export const SHARDS = 8;

/** What a step happened to: an opening, a conversation or a message all carry these. */
export interface StepSubject {
  accountId: string;
  campaignId?: string | null;
  contactId: string;
}

/** Records that the contact reached `step` of its campaign now; nothing when there is no campaign or it was counted. */
export async function recordStep(tx: Tx, step: FunnelStep, subject: StepSubject, at = clockNow()): Promise<void> {
  const { accountId, campaignId, contactId } = subject;
  if (!campaignId) return;
  const id = `${step}:${campaignId}:${contactId}`;
  if (await tx.get('funnel_steps', id)) return;
  await tx.insert<FunnelStepRecord>('funnel_steps', {
    id,
    accountId,
    campaignId,
    contactId,
    step,
    at: new Date(at).toISOString(),
  });
  const day = new Date(at).toISOString().slice(0, 10);
  const key = `${step}@${Math.floor((at % DAY_MS) / QUARTER_MS)}`;
  await countOne(tx, 'funnel_counts', `${campaignId}:${day}:${shardOf(contactId)}`, key, {
    accountId,
    campaignId,
    month: day.slice(0, 7),
    day,
  });
}

type Counted = { id: string; counts: Record<string, number> };

/**
 * Adds one (or `by`) to `key` in the counts document `id` of `collection`, made of `fields` when it is the first.
 */
export async function countOne(
  tx: Tx,
  collection: string,
  id: string,
  key: string,
  fields: Record<string, unknown>,
  by: 1 | -1 = 1,
): Promise<void> {
  // Counters are shared by many contacts' transactions: they take turns on each rather than race.
  const doc = await tx.lock<Counted>(collection, id);
  if (doc) await tx.update<Counted>(collection, id, { counts: { ...doc.counts, [key]: (doc.counts[key] ?? 0) + by } });
  else if (by > 0) await tx.insert<Counted>(collection, { id, ...fields, counts: { [key]: by } });
}

/** A message from the contact after the campaign's opening message went: the contact replied to that campaign. */
export async function recordReply(tx: Tx, conversation: Conversation): Promise<void> {
  if (conversation.opening?.status === 'sent')
    await recordStep(tx, 'replied', { ...conversation, campaignId: conversation.opening.campaignId });
}

export function shardOf(contactId: string): number {
  let h = 0;
  for (let i = 0; i < contactId.length; i++) h = (h * 31 + contactId.charCodeAt(i)) | 0;
  return Math.abs(h) % SHARDS;
}

/**
 * A contact's own record in a per-contact collection of a campaign (`<prefix><contactId>`): removed when the contact
 * is erased, given to `into` (unless it has its own) when the contact is merged into it. The counts keep no contact.
 */
export async function moveRecord(
  tx: Tx,
  collection: string,
  prefix: string,
  contactId: string,
  into?: string,
): Promise<void> {
  const doc = await tx.get<FunnelStepRecord>(collection, `${prefix}${contactId}`);
  if (!doc) return;
  await tx.remove(collection, doc.id);
  if (into && !(await tx.get(collection, `${prefix}${into}`)))
    await tx.insert(collection, { ...doc, id: `${prefix}${into}`, contactId: into });
}

/** The funnel steps the contact reached in the campaign, in the order of the funnel: what its export shows. */
export async function stepsOf(r: Reader, campaignId: string, contactId: string): Promise<FunnelStepRecord[]> {
  const found = await Promise.all(
    FUNNEL_STEPS.map((step) => r.get<FunnelStepRecord>('funnel_steps', `${step}:${campaignId}:${contactId}`)),
  );
  return found.filter((step): step is FunnelStepRecord => step !== undefined);
}

/** The contact's funnel steps in the campaign: removed, or moved to `into` (see moveRecord). */
export async function moveSteps(tx: Tx, campaignId: string, contactId: string, into?: string): Promise<void> {
  for (const step of FUNNEL_STEPS) await moveRecord(tx, 'funnel_steps', `${step}:${campaignId}:`, contactId, into);
}
