import type { Gateway } from '../context.js';
import { newJob, type JobKinds } from '../domain/job-kinds.js';
import type { Delivery } from '../domain/webhooks.js';
import type { Job, JobResult } from '../store/store.js';
import type { JobContext } from './queue.js';

/** Set once every delivery stored before names the contact its event is about: no process schedules the job again. */
const DONE = 'deliveries-by-contact-1';
const PAGE = 200;
/** Deliveries per run, well within a job's lease; the next run goes on from the last. */
const PER_RUN = 5_000;

/**
 * A delivery names the contact its event is about (`contactId`), so that the contact's export lists it and its
 * erasure removes it, though a hand-off's event names no message. Deliveries an earlier release stored name it only in
 * their payload: job `delivery_contacts`, scheduled at start until one run of it has walked them all, copies it out
 * (PostgreSQL's migration 20 did the same at once). Safe to run twice.
 */
export async function scheduleDeliveryContacts(gw: Gateway): Promise<void> {
  if (await gw.store.settings.get(DONE)) return;
  await gw.store.transact((tx) => tx.enqueue(newJob('delivery_contacts', {}, { key: 'delivery-contacts' })));
}

export async function nameDeliveryContacts(
  gw: JobContext,
  job: Job<JobKinds['delivery_contacts']>,
): Promise<JobResult> {
  let after = job.data.after;
  for (let done = 0; done < PER_RUN; done += PAGE) {
    const page = await gw.store.scan<Delivery>('deliveries', { limit: PAGE, after });
    const unnamed = page.filter((d) => !d.contactId && typeof d.payload?.contactId === 'string');
    if (unnamed.length > 0) {
      await gw.store.transact(async (tx) => {
        for (const d of unnamed)
          await tx.update<Delivery>('deliveries', d.id, { contactId: d.payload.contactId as string });
      });
    }
    if (page.length < PAGE) {
      await gw.store.settings.putIfAbsent(DONE, new Date().toISOString());
      return;
    }
    after = page.at(-1)!.id;
  }
  await gw.store.transact((tx) => tx.enqueue(newJob('delivery_contacts', { after })));
}
