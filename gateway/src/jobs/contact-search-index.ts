import type { Gateway } from '../context.js';
import { indexStoredContactsIn } from '../domain/contact-search.js';
import type { JobKinds } from '../domain/job-kinds.js';
import type { Job, JobResult } from '../store/store.js';
import { runBackfill, scheduleBackfill, type Backfill } from './backfill.js';
import type { JobContext } from './queue.js';

/** Contacts per transaction: its reads of their keys go together. */
const BATCH = 25;

/**
 * Search keys (domain/contact-search.ts) are written with each contact; the contacts stored by an earlier version
 * get theirs from job `contact_search_index`. A contact's keys are read before they are added, and keys an earlier
 * version made are kept, as the current version makes them too. The mark is raised whenever what a contact is found
 * by changes (2: words and IDs without their punctuation; 3: a key of 5 to 7 digits kept as its last 4), so that
 * contacts stored before get the keys they lack.
 */
const walk: Backfill<{ id: string }> = {
  kind: 'contact_search_index',
  done: 'contact-search-indexed-3',
  collection: 'contacts',
  page: 100,
  perRun: 2_000,
  apply: async (gw, page) => {
    for (let i = 0; i < page.length; i += BATCH) {
      const ids = page.slice(i, i + BATCH).map((c) => c.id);
      await gw.store.transact((tx) => indexStoredContactsIn(tx, ids));
    }
  },
  finished: 'every stored contact has its search keys',
};

export const scheduleContactSearchIndex = (gw: Gateway): Promise<void> => scheduleBackfill(gw, walk);

export const indexContacts = (gw: JobContext, job: Job<JobKinds['contact_search_index']>): Promise<JobResult> =>
  runBackfill(gw, walk, job);
