import type { Gateway } from '../context.js';
import { indexStoredContactsIn } from '../domain/contact-search.js';
import type { Job, JobResult } from '../store/store.js';
import { newJob, type JobKinds } from '../domain/job-kinds.js';
import type { JobContext } from './queue.js';

/**
 * Set once every contact stored before has the keys of this version: no process schedules the job again. Raised
 * whenever what a contact is found by changes (2: words and IDs without their punctuation), so that contacts stored
 * by an earlier release get the keys they lack.
 */
const SEARCH_KEYS_DONE = 'contact-search-indexed-2';
const PAGE = 100;
/** Contacts per transaction: its reads of their keys go together. */
const BATCH = 25;
/** Contacts per run, well within a job's lease; the next run goes on from the last. */
const PER_RUN = 2_000;

/**
 * Search keys (domain/contact-search.ts) are written with each contact; the contacts stored by an earlier version
 * get theirs from job `contact_search_index`, scheduled at start until one run of it has walked every contact. It is
 * safe to run twice: a contact's keys are read before they are added. Keys an earlier version made are kept, as the
 * current version makes them too.
 */
export async function scheduleContactSearchIndex(gw: Gateway): Promise<void> {
  if (await gw.store.settings.get(SEARCH_KEYS_DONE)) return;
  await gw.store.transact(async (tx) => {
    await tx.enqueue(newJob('contact_search_index', {}, { key: 'contact-search-index' }));
  });
}

export async function indexContacts(gw: JobContext, job: Job<JobKinds['contact_search_index']>): Promise<JobResult> {
  let after = job.data.after;
  for (let done = 0; done < PER_RUN; ) {
    const page = await gw.store.scan<{ id: string }>('contacts', { limit: PAGE, after });
    for (let i = 0; i < page.length; i += BATCH) {
      const ids = page.slice(i, i + BATCH).map((c) => c.id);
      await gw.store.transact((tx) => indexStoredContactsIn(tx, ids));
    }
    done += page.length;
    if (page.length < PAGE) {
      await gw.store.settings.putIfAbsent(SEARCH_KEYS_DONE, new Date().toISOString());
      gw.log.info({ contacts: done }, 'every stored contact has its search keys');
      return;
    }
    after = page.at(-1)!.id;
  }
  // The next run, from here: a job of its own, so a lease never has to cover them all.
  await gw.store.transact((tx) => tx.enqueue(newJob('contact_search_index', { after })));
}
