import type { Engine } from '../engine/ports/providers.js';
import { inBackground } from '../store/background.js';
import { StoreUnavailableError, type Job, type JobOutcome, type JobResult } from '../store/store.js';
import { clockNow, onClockAdvanced } from '../clock.js';
import { metrics } from '../metrics.js';

/** What every job's handler is given: the running gateway, its store and its providers. */
export type JobContext = Engine;

/** A claimed job's handler, as the runner finds it by the job's kind (see jobs/catalogue.ts); undefined: none. */
export type HandlerOf = (kind: string) => ((ctx: JobContext, job: Job) => Promise<JobResult>) | undefined;

/** A job that can never run (its data says something the gateway cannot act on): it goes to the dead jobs at once. */
export class UnprocessableJob extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UnprocessableJob';
  }
}

/** Claims past this many are a job that keeps failing or keeps killing its runner: it goes to the dead jobs. */
export const MAX_ATTEMPTS = 25;
/** Jobs a runner runs at once, unless told otherwise. */
export const CONCURRENCY = 8;
const FAULT_BACKOFF_MS = 60_000;

export interface RunnerOptions {
  /** The queue whose jobs it claims. */
  queue: string;
  concurrency?: number;
  pollMs?: number;
  leaseMs: number;
}

/**
 * Claims due jobs from one of the store's queues and runs them, a few at a time. A job is claimed under a lease, so
 * a runner in another process takes it over only if this one dies; the handler records its own outcome, and the
 * runner then removes the job, reschedules it when asked, or, after a fault, retries it later and finally marks
 * it dead for the operator. A handler may end its job in the transaction that records its outcome (Tx.settle): one
 * commit then, not two.
 *
 * The store tells the runner when a committed transaction queued a job in its queue (in any process, on
 * PostgreSQL); it also polls every `pollMs`, and at the next due time it knows of, in case such news was lost.
 */
export class JobRunner {
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private running = new Set<Promise<void>>();
  private ticking = false;
  /** The claim under way, when ticking: drain() waits for it. */
  private turn: Promise<void> | undefined;
  /** Jobs this runner has started, ever: drain() tells a pass that ran nothing by it. */
  private launched = 0;
  private again = false;
  private stopped = false;
  /** When the queue's next job is due, as the last claim answered; undefined: none was waiting. */
  private nextDue: number | undefined;
  /** A wake-up found every slot taken: once one frees, the runner claims again. */
  private missed = false;
  /** Jobs running per account. */
  private readonly runningOf = new Map<string, number>();

  constructor(
    private readonly gw: JobContext,
    private readonly handlerOf: HandlerOf,
    private readonly options: RunnerOptions,
  ) {}

  start(): void {
    if (this.stopped || this.unsubscribe) return;
    const unsubscribe = this.gw.store.jobs.onEnqueued(this.options.queue, () => this.wake());
    // A clock moved forward (tests only) makes jobs due at once: they run now, not at the next poll.
    const unwatch = onClockAdvanced(() => this.wake());
    this.unsubscribe = () => {
      unsubscribe();
      unwatch();
    };
    this.wake();
  }

  /** Started and not stopped: the readiness probe's view. */
  get active(): boolean {
    return this.unsubscribe !== undefined && !this.stopped;
  }

  /** Runs due jobs now instead of at the next poll. */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) this.again = true;
    else setImmediate(() => void this.takeTurn());
  }

  /** The queue whose jobs it claims. */
  get queue(): string {
    return this.options.queue;
  }

  /** A claim under way or a job running. */
  get working(): boolean {
    return this.ticking || this.running.size > 0;
  }

  /**
   * Runs every job of the queue that is due now on the gateway's clock, and those they make due now, until none
   * is due and none runs; answers how many jobs it ran or waited for. Tests on a manual clock call it where a served
   * gateway would have got there on its own: a jump of the clock and a drain instead of a wait.
   */
  async drain(): Promise<number> {
    // A job a wake-up launched before the drain began is counted too: what it queues in another queue (a hand-off's
    // notice) is then drained by the gateway's next pass, not left to a runner's own wake-up.
    const before = this.launched - this.running.size;
    while (!this.stopped) {
      if (this.turn) await this.turn;
      else if (this.running.size) await Promise.race(this.running);
      else {
        // A turn that claimed nothing: nothing is due (or the store is away, which the turn has reported).
        const from = this.launched;
        await this.takeTurn();
        if (this.launched === from && !this.running.size) break;
      }
    }
    return this.launched - before;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearTimeout(this.timer);
    while (this.ticking || this.running.size)
      await Promise.allSettled([...this.running, new Promise((r) => setTimeout(r, 10))]);
  }

  /** A tick, unless one is under way: either way, the claim that drain() can wait for. */
  private takeTurn(): Promise<void> {
    if (!this.ticking) {
      const turn: Promise<void> = this.tick().finally(() => {
        if (this.turn === turn) this.turn = undefined;
      });
      this.turn = turn;
    }
    return this.turn ?? Promise.resolve();
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.ticking) return;
    this.ticking = true;
    clearTimeout(this.timer);
    const pollMs = this.options.pollMs ?? 1000;
    let next = clockNow() + pollMs;
    try {
      // Each claim also tells when the next job is due; the last one's answer sets the timer.
      let due: number | undefined;
      let sharing = true;
      do {
        this.again = false;
        const free = (this.options.concurrency ?? CONCURRENCY) - this.running.size;
        if (free <= 0) {
          this.missed = true;
          break;
        }
        this.missed = false;
        const skipping = sharing ? this.atTheirShare() : [];
        const claimed = await inBackground(this.gw.store.backend, () =>
          this.gw.store.jobs.claimDue(this.options.queue, free, this.options.leaseMs, skipping),
        );
        ({ nextDueAt: due } = claimed);
        this.nextDue = due;
        for (const job of claimed.jobs) this.launch(job);
        if (claimed.jobs.length === free) this.again = true;
        else if (skipping.length && due !== undefined && due <= clockNow()) {
          // What is still due is theirs alone: with nobody else's waiting, they take the slots left.
          sharing = false;
          this.again = true;
        }
      } while (this.again && !this.stopped);
      // Every slot taken, nothing was asked: the job that frees one wakes the runner (see launch), so the queue is
      // not asked when its next job is due on every job queued meanwhile.
      if (due !== undefined) next = Math.min(next, due);
    } catch (err) {
      // The store away: told through its health, a line per failure class per 10 s, not one per poll.
      if (err instanceof StoreUnavailableError)
        this.gw.store.health.report(err, {}, 'job queue unavailable; polling again');
      else this.gw.log.error({ err }, 'job queue unavailable; polling again');
    } finally {
      this.ticking = false;
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.takeTurn(), Math.max(10, next - clockNow()));
    this.timer.unref();
  }

  /**
   * A job done frees a slot: the runner claims again only if a job may be waiting for it (one due already, as the
   * last claim said, or news it had no slot for), or if this one was put back for later (its timer is set anew).
   * Any other job it hears of, or finds at its timer.
   */
  private launch(job: Job): void {
    this.launched += 1;
    const account = job.accountId;
    if (account) this.runningOf.set(account, (this.runningOf.get(account) ?? 0) + 1);
    const run = inBackground(this.gw.store.backend, () => this.run(job)).then((again) => {
      this.running.delete(run);
      if (account) {
        const left = this.runningOf.get(account)! - 1;
        if (left) this.runningOf.set(account, left);
        else this.runningOf.delete(account);
      }
      if (again || this.missed || (this.nextDue !== undefined && this.nextDue <= clockNow())) this.wake();
    });
    this.running.add(run);
  }

  /**
   * The accounts running half the runner's slots or more. A claim serves the others' due jobs first: one account's
   * slow jobs (a receiver or a bot server holding each to its timeout, a backlog of them) then hold a slot another
   * account's job waits for only until one of them ends, not until all of theirs have run. Alone, an account takes
   * every slot.
   */
  private atTheirShare(): string[] {
    const share = Math.ceil((this.options.concurrency ?? CONCURRENCY) / 2);
    return [...this.runningOf].filter(([, running]) => running >= share).map(([account]) => account);
  }

  /** Runs the job and settles it; true when it is to run again later. */
  private async run(job: Job): Promise<boolean> {
    const handler = this.handlerOf(job.kind);
    try {
      if (!handler) throw new Error(`no handler for jobs of kind "${job.kind}"`);
      if (job.attempts > MAX_ATTEMPTS) throw new Error(`gave up after ${MAX_ATTEMPTS} attempts`);
      const result = await handler(this.gw, job);
      // The handler's own transaction recorded its outcome (Tx.settle), or it is recorded here.
      const recorded = result !== undefined && 'settled' in result;
      const outcome: JobOutcome = recorded ? result.settled : (result ?? { done: true });
      if ('retryAt' in outcome) metrics.jobAttemptsFailed.inc({ kind: job.kind });
      if (!recorded && !(await this.gw.store.jobs.settle(job, outcome)))
        this.gw.log.warn({ job: job.id, kind: job.kind }, 'job lease lost; another runner took it over');
      return 'later' in outcome || 'retryAt' in outcome;
    } catch (err) {
      // A fault of ours, of the disk or of the database: try again later rather than lose the job.
      metrics.jobAttemptsFailed.inc({ kind: job.kind });
      const message = (err as Error).message;
      const dead = !handler || job.attempts >= MAX_ATTEMPTS || err instanceof UnprocessableJob;
      const fields = { job: job.id, kind: job.kind, attempts: job.attempts };
      const said = dead ? 'job failed for good' : 'job failed; retrying later';
      if (err instanceof StoreUnavailableError) this.gw.store.health.report(err, fields, said);
      // A job its data rules out is the data's fault, said in its reason; where in the code it was found is noise.
      else if (err instanceof UnprocessableJob) this.gw.log.error({ ...fields, reason: message }, said);
      else this.gw.log.error({ err, ...fields }, said);
      const retryAt = clockNow() + FAULT_BACKOFF_MS * Math.min(2 ** (job.attempts - 1), 60);
      await this.gw.store.jobs
        .settle(job, dead ? { dead: message } : { retryAt, error: message })
        .catch(() => undefined);
      return !dead;
    }
  }
}
