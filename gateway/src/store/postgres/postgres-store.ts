import pg from 'pg';
import type { ChangeFeed, CollectionSpec, Doc, Page, Placed, Scalar, Store, Tx } from '../store.js';
import { PostgresBlobs } from './blobs.js';
import { Catalog } from './catalog.js';
import { DocumentReads } from './documents.js';
import { readsTogether } from './together.js';
import { isBackground } from '../background.js';
import { StoreHealth } from '../health.js';
import { asStoreError, isUnavailable } from './errors.js';
import { HitCounter } from './hits.js';
import { JobNotifications, type StoreLog } from './job-notifications.js';
import { ChangeNotifications } from './changes.js';
import type { PostgresTx } from './postgres-tx.js';
import { PostgresJobQueue } from './job-queue.js';
import { migrate } from './migrations.js';
import { checkSchema } from './schema-check.js';
import { PostgresSettings } from './settings.js';
import { prepared, type Query } from './sql.js';
import { runTransaction } from './transaction.js';
import { watchPools } from '../../metrics.js';

export interface PostgresStoreOptions {
  url: string;
  collections: CollectionSpec[];
  /** Connections this process keeps open at most for requests, besides the one that listens for queued jobs. */
  poolSize?: number;
  /** And for background work, its job runners' (see inBackground). */
  jobPoolSize?: number;
  /** Where the store reports a connection it lost and opens again, and each migration; process warnings when absent. */
  log?: StoreLog;
  /** Hears whether the database answers; one of its own, on `log`, when absent. */
  health?: StoreHealth;
}

const warnings: StoreLog = {
  warn: (fields, message) => process.emitWarning(`store: ${message} ${JSON.stringify(fields)}`),
  info: () => undefined,
};

/** A request waits this long for a free connection (or a new one) before it fails with a 503. */
const CONNECT_TIMEOUT_MS = 10_000;
/** The readiness probe's patience: a balancer asks again soon. */
const PING_TIMEOUT_MS = 2_000;

/**
 * Opens the store on a PostgreSQL database, migrating it first. Any number of gateway processes may open the
 * same database: every rule lives in the database (unique indexes, row locks, job leases).
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const catalog = new Catalog(options.collections);
  const pools: Pools = {
    requests: newPool(options.url, options.poolSize ?? 10, 'leadchat-gateway'),
    jobs: newPool(options.url, options.jobPoolSize ?? 5, 'leadchat-gateway job runners'),
  };
  const log = options.log ?? warnings;
  try {
    await migrate(pools.requests, undefined, log);
    await checkSchema(pools.requests, catalog.collections);
  } catch (err) {
    await endPools(pools);
    throw err;
  }
  const health = options.health ?? new StoreHealth(log);
  const changes = new ChangeNotifications();
  const notifications = new JobNotifications(options.url, log, health, changes);
  await notifications.start();
  watchPools(pools);
  return new PostgresStore(pools, catalog, notifications, health, changes);
}

/**
 * The connections of a process: requests take theirs from one pool and background work from another, so that jobs
 * never hold every connection while a request waits for one.
 */
type Pools = Record<'requests' | 'jobs', pg.Pool>;

/** A pool whose connections show as `name` in pg_stat_activity. */
function newPool(url: string, max: number, name: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: name,
    // A transaction's statements that need no answer yet go out with the next one (see Pipeline).
    pipeline: true,
  });
  // An idle connection that the server drops must not crash the process: the pool opens another.
  pool.on('error', () => undefined);
  return pool;
}

const endPools = (pools: Pools): Promise<void> =>
  Promise.all([pools.requests.end(), pools.jobs.end()]).then(() => undefined);

class PostgresStore implements Store {
  readonly backend = 'postgres' as const;
  readonly jobs: PostgresJobQueue;
  readonly blobs: PostgresBlobs;
  readonly settings: PostgresSettings;
  private readonly reads: DocumentReads;
  private readonly hits: HitCounter;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly pools: Pools,
    private readonly catalog: Catalog,
    private readonly notifications: JobNotifications,
    readonly health: StoreHealth,
    /** Sends and hears committed changes on the connection that listens (see JobNotifications). */
    private readonly notified: ChangeNotifications,
  ) {
    // Outside a transaction: one pooled statement each, no locks.
    const query: Query = (text, values) =>
      this.pool.query(prepared(text, values)).then(
        (result) => {
          health.answered();
          return result;
        },
        (err: unknown) => {
          if (isUnavailable(err)) health.failed(err);
          throw asStoreError(err);
        },
      );
    // Reads by id asked for together (Promise.all) go as one statement.
    this.reads = new DocumentReads(readsTogether(query), catalog);
    this.jobs = new PostgresJobQueue(query, notifications);
    this.blobs = new PostgresBlobs(query);
    this.settings = new PostgresSettings(query);
    this.hits = new HitCounter(query);
  }

  get<T extends Doc>(collection: string, id: string): Promise<T | undefined> {
    return this.reads.get<T>(collection, id);
  }

  find<T extends Doc>(collection: string, index: string, values: Scalar[], page?: Page): Promise<T[]> {
    return this.reads.find<T>(collection, index, values, page);
  }

  findPlaced<T extends Doc>(
    collection: string,
    index: string,
    values: Scalar[],
    page?: Page,
  ): Promise<Array<Placed<T>>> {
    return this.reads.findPlaced<T>(collection, index, values, page);
  }

  scan<T extends Doc>(collection: string, page?: Page): Promise<T[]> {
    return this.reads.scan<T>(collection, page);
  }

  /** The pool of the work asking: a request's, or background work's (see inBackground). */
  private get pool(): pg.Pool {
    return isBackground() ? this.pools.jobs : this.pools.requests;
  }

  get changes(): ChangeFeed {
    return this.notified.feed;
  }

  transact<R>(fn: (tx: Tx) => Promise<R>): Promise<R> {
    return runTransaction(
      this.pool,
      this.catalog,
      async (tx) => {
        const result = await fn(tx);
        // Sent once committed, and only then (see ChangeNotifications): never for an attempt that loses a race.
        const { published } = tx as PostgresTx;
        if (!published.empty) tx.afterCommit(() => this.notified.committed(published));
        return result;
      },
      this.health,
    );
  }

  /** A COMMIT returns once the change is durable: nothing is ever left to wait for. */
  async durable(): Promise<void> {}

  hit(key: string, windowMs: number, weight?: number): Promise<{ hits: number; resetAt: number }> {
    return this.hits.hit(key, windowMs, weight);
  }

  /** A statement answered within a few seconds, on a connection of the pool. */
  async ping(): Promise<void> {
    if (this.closing) throw new Error('the store is closing');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(Object.assign(new Error('the database did not answer within 2 s'), { code: 'ETIMEDOUT' })),
        PING_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([this.pools.requests.query('SELECT 1'), late]);
      this.health.answered();
    } catch (err) {
      if (isUnavailable(err)) this.health.failed(err);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    watchPools(undefined);
    this.notified.close();
    this.closing ??= Promise.all([this.notifications.close(), endPools(this.pools)]).then(() => undefined);
    return this.closing;
  }
}
