import type { Gateway } from '../context.js';
import type { JobKinds } from '../domain/job-kinds.js';
import type { Delivery } from '../domain/webhooks.js';
import type { Job, JobResult } from '../store/store.js';
import { runBackfill, scheduleBackfill, type Backfill } from './backfill.js';
import type { JobContext } from './queue.js';

/**
 * A delivery names the contact its event is about (`contactId`), so that the contact's export lists it and its
 * erasure removes it, though a hand-off's event names no message. Deliveries an earlier release stored name it only in
 * their payload: job `delivery_contacts` copies it out (PostgreSQL's migration 20 did the same at once).
 */
const walk: Backfill<Delivery> = {
  kind: 'delivery_contacts',
  done: 'deliveries-by-contact-1',
  collection: 'deliveries',
  page: 200,
  perRun: 5_000,
  apply: async (gw, page) => {
    const unnamed = page.filter((d) => !d.contactId && typeof d.payload?.contactId === 'string');
    if (unnamed.length === 0) return;
    await gw.store.transact(async (tx) => {
      for (const d of unnamed)
        await tx.update<Delivery>('deliveries', d.id, { contactId: d.payload.contactId as string });
    });
  },
  finished: 'every stored delivery names its contact',
};

export const scheduleDeliveryContacts = (gw: Gateway): Promise<void> => scheduleBackfill(gw, walk);

export const nameDeliveryContacts = (gw: JobContext, job: Job<JobKinds['delivery_contacts']>): Promise<JobResult> =>
  runBackfill(gw, walk, job);
