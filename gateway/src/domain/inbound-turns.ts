import type { Tx } from '../store/store.js';
import type { InboundJob } from './inbound-entries.js';
import { newJob } from './job-kinds.js';

/**
 * A contact's messages on one provider are processed one at a time, in the order their webhooks were taken: one
 * reading its file for seconds does not let the next overtake it. Each contact with messages still to process has a
 * turn: the first of them is in the job queue (queued or running), the others wait here with their job's data,
 * and the job that ends hands the turn to the next. A message already waiting or in process is not taken twice,
 * however often its provider delivers it; once processed, it is known by its messageSid (engine/receive.ts).
 *
 * The queue runs jobs side by side and knows nothing of contacts; the turn, a document locked by whoever changes
 * it, holds on every backend and across processes.
 */
export interface InboundTurn {
  id: string;
  accountId: string;
  /** The entries' keys, oldest first: the first is in the job queue; the others wait with their job's data. */
  waiting: Array<{ key: string; job: InboundJob | null }>;
}

export const INBOUND_TURNS = 'inbound_turns';

/** The turn of the contact who wrote `sender` to the account on this provider. */
export const turnOf = (accountId: string, provider: string, sender: string): string =>
  `${accountId}:${provider}:${sender}`;

/**
 * Queues the job of an entry in the caller's transaction, or leaves it waiting for its contact's turn; false when
 * the entry is already waiting or in process (delivered again).
 */
export async function takeEntry(tx: Tx, job: InboundJob): Promise<boolean> {
  const key = job.entry.key;
  if (!job.turn || !key) {
    await tx.enqueue(newJob('inbound', job, { accountId: job.accountId }));
    return true;
  }
  const turn = await tx.lock<InboundTurn>(INBOUND_TURNS, job.turn);
  if (!turn) {
    await tx.insert<InboundTurn>(INBOUND_TURNS, {
      id: job.turn,
      accountId: job.accountId,
      waiting: [{ key, job: null }],
    });
    await tx.enqueue(newJob('inbound', job, { accountId: job.accountId }));
    return true;
  }
  if (turn.waiting.some((w) => w.key === key)) return false;
  await tx.update<InboundTurn>(INBOUND_TURNS, turn.id, { waiting: [...turn.waiting, { key, job }] });
  return true;
}

/**
 * The entry's job is done with it (processed, or given up): the contact's next entry goes to the job queue. An
 * entry not first in its turn (a dead job brought back, a run after one that ended the turn) changes nothing.
 */
export async function endTurn(tx: Tx, job: InboundJob): Promise<void> {
  if (!job.turn || !job.entry.key) return;
  const turn = await tx.lock<InboundTurn>(INBOUND_TURNS, job.turn);
  if (turn?.waiting[0]?.key !== job.entry.key) return;
  const [, next, ...rest] = turn.waiting;
  if (!next) {
    await tx.remove(INBOUND_TURNS, turn.id);
    return;
  }
  if (next.job) await tx.enqueue(newJob('inbound', next.job, { accountId: next.job.accountId }));
  await tx.update<InboundTurn>(INBOUND_TURNS, turn.id, { waiting: [{ key: next.key, job: null }, ...rest] });
}
