import type { Doc, Job, JobStats } from '../store.js';
import type { Watcher } from './collection.js';
import { SortedIndex, type SortKey } from './sorted-index.js';

interface Kind {
  /** Its jobs waiting or running, by runAt: the first one is the oldest due, when it is due. */
  waiting: SortedIndex;
  queued: number;
  dead: number;
}

/**
 * The embedded store's job queue by kind, kept in memory as the jobs change, so that the operator's gauges cost the
 * same for 10 jobs or 100,000: a scrape reads a few numbers per kind. The jobs collection tells it of the jobs there
 * when the store opens (from the page keys: the collection's indexes on kind and status and its order by runAt; no
 * page is read), then of every change, those taken back by a rollback or a failed commit included. The collection's
 * own index on runAt cannot tell the oldest due job of each kind without looking at the jobs in front of it, hence a
 * small one per kind.
 */
export class JobTally implements Watcher {
  private readonly kinds = new Map<string, Kind>();
  /** While loading: the kind of the job before. */
  private last: string | undefined;

  /** Sorted once per kind: jobs found one by one in insertion order would each be put in place in a long array. */
  loaded(docs: Doc[]): void {
    const waiting = new Map<Kind, Array<[string, SortKey]>>();
    let kind: Kind | undefined;
    let items: Array<[string, SortKey]> = [];
    for (const job of docs as Job[]) {
      // Jobs of a kind often come together: the last kind's entry is looked up only when the kind changes.
      if (kind === undefined || job.kind !== this.last) {
        kind = this.kind(job.kind);
        this.last = job.kind;
        items = waiting.get(kind) ?? [];
        waiting.set(kind, items);
      }
      if (job.status === 'dead') kind.dead += 1;
      else {
        kind.queued += 1;
        items.push([job.id, kind.waiting.keyOf(job)]);
      }
    }
    this.last = undefined;
    for (const [of, items] of waiting) of.waiting.load(items);
  }

  changed(before: Doc | undefined, after: Doc | undefined): void {
    const was = before as Job | undefined;
    const is = after as Job | undefined;
    // A claim or a retry of a job moves only its runAt; most updates (its lease, its last error) move nothing here.
    if (was && is && was.kind === is.kind && was.status === is.status && was.runAt === is.runAt) return;
    if (was) this.count(was, -1);
    if (is) this.count(is, 1);
  }

  stats(at: number): JobStats[] {
    const stats: JobStats[] = [];
    for (const [kind, { waiting, queued, dead }] of this.kinds) {
      if (queued === 0 && dead === 0) continue;
      const first = waiting.first();
      stats.push({ kind, queued, dead, oldestDueAt: first !== undefined && first <= at ? first : null });
    }
    return stats;
  }

  private kind(name: string): Kind {
    let kind = this.kinds.get(name);
    if (!kind) this.kinds.set(name, (kind = { waiting: new SortedIndex('runAt'), queued: 0, dead: 0 }));
    return kind;
  }

  private count(job: Job, by: 1 | -1): void {
    const kind = this.kind(job.kind);
    if (job.status === 'dead') kind.dead += by;
    else {
      kind.queued += by;
      if (by > 0) kind.waiting.add(job.id, kind.waiting.keyOf(job));
      else kind.waiting.delete(job.id, kind.waiting.keyOf(job));
    }
  }
}
