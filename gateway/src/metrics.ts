import { statfs } from 'node:fs/promises';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { isBuiltIn } from './api-contract.js';

/**
 * What the process tells the operator's Prometheus at `GET /metrics`. One registry per process: every gateway
 * process is scraped on its own. Labels name kinds, channels, routes and outcomes only, never an id, a key or a
 * message's text, so their number stays bounded.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'leadchat_' });

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const metrics = {
  build: new Gauge({
    name: 'leadchat_build_info',
    help: 'Always 1: which build serves (its version and commit, "unknown" when the build did not know it) on which store',
    labelNames: ['version', 'commit', 'store'] as const,
    registers: [registry],
  }),
  requests: new Counter({
    name: 'leadchat_http_requests_total',
    help: 'HTTP requests answered, by method, route (its pattern, not its ids) and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  }),
  requestSeconds: new Histogram({
    name: 'leadchat_http_request_duration_seconds',
    help: "Time from a request's headers to the end of its answer, by method and route",
    labelNames: ['method', 'route'] as const,
    buckets: SECONDS,
    registers: [registry],
  }),
  messagesReceived: new Counter({
    name: 'leadchat_messages_received_total',
    help: 'Messages received from contacts, by channel (custom, sms, whatsapp, messenger, instagram)',
    labelNames: ['channel'] as const,
    registers: [registry],
  }),
  messagesSent: new Counter({
    name: 'leadchat_messages_sent_total',
    help: 'Outgoing messages reaching a status (sent, delivered, read, failed), by channel',
    labelNames: ['channel', 'status'] as const,
    registers: [registry],
  }),
  deliveries: new Counter({
    name: 'leadchat_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by event and outcome (sent, retry, failed)',
    labelNames: ['event', 'outcome'] as const,
    registers: [registry],
  }),
  providerEntriesRefused: new Counter({
    name: 'leadchat_provider_entries_refused_total',
    help: "Entries of providers' webhooks (a message, a receipt, a status; a whole body that is not UTF-8) refused for their text and answered as taken, by provider and reason (nul, lone_surrogate, not_utf8)",
    labelNames: ['provider', 'reason'] as const,
    registers: [registry],
  }),
  providerEntriesSkipped: new Counter({
    name: 'leadchat_provider_entries_skipped_total',
    help: "Entries of providers' webhooks that carried nothing to keep, answered as taken and logged, by provider and reason (not_taken: a kind the gateway does not take, such as a location or an opt-in; unreadable: nothing it knows how to read)",
    labelNames: ['provider', 'reason'] as const,
    registers: [registry],
  }),
  botReplies: new Counter({
    name: 'leadchat_bot_replies_total',
    help: 'Bot replies sent, by kind (answer, clarify, handoff)',
    labelNames: ['kind'] as const,
    registers: [registry],
  }),
  handoffs: new Counter({
    name: 'leadchat_handoffs_total',
    help: 'Conversations handed to a person, by reason',
    labelNames: ['reason'] as const,
    registers: [registry],
  }),
  passwordDerivations: new Counter({
    name: 'leadchat_password_derivations_total',
    help: 'Password derivations (scrypt: a sign-in, a password set or changed), by outcome: derived, or busy (refused with 429 BUSY before any work, the pool and its queue full)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  jobsQueued: new Gauge({
    name: 'leadchat_jobs_queued',
    help: 'Jobs waiting or running, by kind',
    labelNames: ['kind'] as const,
    registers: [registry],
  }),
  oldestDueJob: new Gauge({
    name: 'leadchat_jobs_oldest_due_seconds',
    help: 'How long the oldest job already due has waited, by kind (0: none is late)',
    labelNames: ['kind'] as const,
    registers: [registry],
  }),
  jobAttemptsFailed: new Counter({
    name: 'leadchat_job_attempts_failed_total',
    help: 'Job attempts that failed, by kind: a fault (the job tried again later, or given up) or a failure the job retries on its own schedule (a webhook delivery, a channel send)',
    labelNames: ['kind'] as const,
    registers: [registry],
  }),
  deadJobs: new Gauge({
    name: 'leadchat_jobs_dead',
    help: 'Jobs given up for good, kept for the operator (GET /admin/v1/jobs?status=dead), by kind',
    labelNames: ['kind'] as const,
    registers: [registry],
  }),
  storeUp: new Gauge({
    name: 'leadchat_store_up',
    help: 'Whether the store answered at the scrape (1) or is out of reach (0: the queue gauges are left out until it answers)',
    registers: [registry],
  }),
  dataDirFree: new Gauge({
    name: 'leadchat_data_dir_free_bytes',
    help: "Bytes of the data dir's file system free for the gateway (the embedded store, media files, the certificate), read at each scrape",
    registers: [registry],
    async collect() {
      this.reset();
      const space = await dataDirSpace();
      if (space) this.set(space.bavail * space.bsize);
    },
  }),
  dataDirSize: new Gauge({
    name: 'leadchat_data_dir_size_bytes',
    help: "Size in bytes of the data dir's file system, read at each scrape",
    registers: [registry],
    async collect() {
      this.reset();
      const space = await dataDirSpace();
      if (space) this.set(space.blocks * space.bsize);
    },
  }),
  certificateExpiry: new Gauge({
    name: 'leadchat_tls_certificate_expiry_timestamp_seconds',
    help: 'When the TLS certificate the gateway serves expires, in seconds since the epoch',
    registers: [registry],
  }),
  storeWrites: new Counter({
    name: 'leadchat_store_writes_total',
    help: 'Documents written (inserted, changed or removed) by committed transactions, by collection: each once a transaction',
    labelNames: ['collection'],
    registers: [registry],
  }),
  commitSeconds: new Histogram({
    name: 'leadchat_store_commit_duration_seconds',
    help: "Embedded store: time from a transaction's end to its commit being durable on disk",
    buckets: SECONDS,
    registers: [registry],
  }),
  pool: new Gauge({
    name: 'leadchat_db_pool_connections',
    help: 'PostgreSQL: the connections of each pool (requests, jobs), by state (total, idle, waiting: work waiting for one)',
    labelNames: ['pool', 'state'] as const,
    registers: [registry],
    collect() {
      for (const [name, pool] of Object.entries(pools ?? {})) {
        this.set({ pool: name, state: 'total' }, pool.totalCount);
        this.set({ pool: name, state: 'idle' }, pool.idleCount);
        this.set({ pool: name, state: 'waiting' }, pool.waitingCount);
      }
    },
  }),
};

/** A message's channel as a label: a built-in one by name, every custom channel (named by its account) as `custom`. */
export const channelLabel = (channel: string | null): string => (isBuiltIn(channel) ? channel : 'custom');

interface PoolUse {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}
let pools: Record<string, PoolUse> | undefined;
let dataDir: string | undefined;

/** The data dir whose file system `leadchat_data_dir_*_bytes` tell. */
export function watchDataDir(dir: string): void {
  dataDir = dir;
}

/** The data dir's file system, or undefined when it cannot be read (the gauges are then left out, not shown stale). */
const dataDirSpace = () => (dataDir === undefined ? undefined : statfs(dataDir).catch(() => undefined));

/** The PostgreSQL pools the process works from, by name, read at each scrape; undefined once they are closed. */
export function watchPools(watched: Record<string, PoolUse> | undefined): void {
  pools = watched;
}
