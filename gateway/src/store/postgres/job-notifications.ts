import pg from 'pg';
import type { StoreHealth } from '../health.js';
import { Signals } from '../signal.js';
import { CHANGES_CHANNEL, type ChangeNotifications } from './changes.js';

/**
 * The channel a transaction that queued a job notifies, with the job's queue (none: any queue); PostgreSQL delivers
 * it on commit only.
 */
export const JOBS_CHANNEL = 'leadchat_jobs';

/** What the store reports about its own connections. */
export interface StoreLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 30_000;
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Listens for jobs queued by any process on the database, on a connection of its own: a pooled connection goes
 * back to the pool between statements and would miss them. A lost connection is opened again with growing pauses;
 * meanwhile the job runners still poll. Listening again, it wakes every queue's runners, since whatever was queued
 * while it was not went unheard. The same connection sends and hears the changes transactions publish (see changes.ts);
 * those committed while it was not listening are told as missed.
 */
export class JobNotifications {
  private readonly signals = new Signals();
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private failures = 0;
  private listened = false;
  private closed = false;

  /** A lost connection is told through `health`, which keeps an outage's lines few; being back, on `log`. */
  constructor(
    private readonly url: string,
    private readonly log: StoreLog,
    private readonly health: StoreHealth,
    /** Hears the changes transactions published (Tx.publish) and sends this process's, on the same connection. */
    private readonly changes?: ChangeNotifications,
  ) {}

  /**
   * Settles once listening, or once the first try failed (it tries again later): a store opened listens before
   * anything subscribes, so that no job committed after the subscription goes unheard.
   */
  start(): Promise<void> {
    return this.connect();
  }

  /** `listener` hears of jobs queued in `queue`. */
  subscribe(queue: string, listener: () => void): () => void {
    return this.signals.subscribe(queue, listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.signals.close();
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: 'leadchat-gateway jobs',
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      // An idle connection sends nothing: keepalives find out that the server or the way to it is gone.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    this.client = client;
    let lost = false;
    const drop = (err: Error) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      this.changes?.lost();
      void client.end().catch(() => undefined);
      if (this.closed) return;
      const delay = Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** this.failures);
      this.failures += 1;
      this.health.report(
        err,
        { retryInMs: delay },
        'not listening for queued jobs: those of other processes are found by polling until listening again',
      );
      this.retry = setTimeout(() => void this.connect(), delay);
      this.retry.unref();
    };
    client.on('error', drop);
    client.on('end', () => drop(new Error('the connection ended')));
    client.on('notification', (n) => {
      if (n.channel !== CHANGES_CHANNEL) this.signals.raise(n.payload || undefined);
      else this.changes?.heard(n.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${JOBS_CHANNEL}; LISTEN ${CHANGES_CHANNEL}`);
    } catch (err) {
      drop(err as Error);
      return;
    }
    if (lost || this.closed) return;
    if (this.failures > 0) this.log.info({}, 'listening for queued jobs again');
    if (this.listened || this.failures > 0) {
      this.signals.raise();
      this.changes?.feed.missed();
    }
    this.changes?.listening(client);
    this.listened = true;
    this.failures = 0;
  }
}
