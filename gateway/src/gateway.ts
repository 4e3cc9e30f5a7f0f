import type { Express } from 'express';
import { adminToken } from './admin-token.js';
import { holdClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { makeDir } from './make-dir.js';
import { ChangeStreams } from './console/server/change-streams.js';
import { consoleRouter } from './console/server/router.js';
import { CONSOLE_BASE } from './console/pages.js';
import { collections } from './domain/collections.js';
import { passwordHashing } from './domain/password-hashing.js';
import type { Engine } from './engine/ports/providers.js';
import { createApp } from './http/app.js';
import { loadCursorKey } from './http/paging.js';
import { scheduleContactSearchIndex } from './jobs/contact-search-index.js';
import { upgradeStoredConversations } from './jobs/conversation-upgrade.js';
import { scheduleDeliveryContacts } from './jobs/delivery-contacts.js';
import { schedulePendingDeliveries } from './jobs/pending-deliveries.js';
import { scheduleCreditDays } from './jobs/credit-days.js';
import { scheduleFailedOpenings } from './jobs/failed-openings.js';
import { scheduleAutoRechargeRequests } from './jobs/auto-recharge-requests.js';
import { scheduleHousekeeping } from './jobs/housekeeping.js';
import type { JobRunner } from './jobs/queue.js';
import { jobRunners } from './jobs/runners.js';
import type { Logger } from './log.js';
import { metrics, watchDataDir } from './metrics.js';
import { providers as builtInProviders } from './providers/index.js';
import { openStore } from './store/open.js';
import { gatewayCommit, gatewayVersion } from './version.js';

export interface GatewayOptions {
  config: Config;
  log: Logger;
  /**
   * The gateway's time: a manualClock() for tests (see clock.ts). By default, the clock another gateway of this
   * process runs on, else the system's.
   */
  clock?: Clock;
  /** The bot and channel providers: the built-in ones by default. */
  providers?: Engine['providers'];
}

/** A gateway assembled, not yet running its jobs nor listening: server.ts serves `app`. */
export interface Gateway {
  engine: Engine;
  /** The whole HTTP application: API, admin API, console. */
  app: Express;
  runners: JobRunner[];
  /** The operator's token, and the file it was generated into when not configured. */
  admin: { token: string; file?: string };
  /** The console's live streams: they never finish by themselves, so a shutdown ends them before waiting on requests. */
  streams: ChangeStreams;
  /**
   * Starts the job runners: what is due runs, and what is queued later runs when due. Until then only drain() runs
   * jobs. The served gateway starts them once it has loaded what it serves with, before listening.
   */
  startJobs(): void;
  /** Says at /readyz that the gateway is going away, while it still serves. */
  markStopping(): void;
  /**
   * Runs every job due now on the gateway's clock, and the jobs these make due now, until none is due or running;
   * answers how many ran.
   */
  drain(): Promise<number>;
  /** A job running or a claim under way, in this gateway. */
  working(): boolean;
  /** When the next job is due (epoch ms; a running one's when its lease ends), as the store says; undefined: none. */
  nextDueAt(): Promise<number | undefined>;
  /** Stops the runners and the live streams, and closes the store; the clock is released. */
  close(): Promise<void>;
}

/** Gateways of this process made and not closed. */
let open = 0;

/**
 * The one way a gateway is assembled: opens the store (locking the data dir for the embedded one), makes the job
 * runners (started by startJobs) and builds the application. The served gateway (server.ts) and the tests' in-process gateways are both
 * made here.
 */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const { config, log } = options;
  const release = holdClock(options.clock);
  let opened;
  try {
    await makeDir(config.dataDir, 0o700);
    opened = await openStore(config, log, collections);
  } catch (err) {
    release();
    throw err;
  }
  const store = opened.store;
  const runners: JobRunner[] = [];
  open += 1;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await Promise.all(runners.map((runner) => runner.stop()));
      await opened.close();
      // The hashing threads are the process's: ended with its last gateway (a later sign-in starts them again).
      if (--open === 0) await passwordHashing.close();
      release();
    })());
  try {
    const [admin, cursorKey] = await Promise.all([adminToken(config), loadCursorKey(store.settings)]);
    metrics.build.set({ version: gatewayVersion, commit: gatewayCommit ?? 'unknown', store: store.backend }, 1);
    watchDataDir(config.dataDir);
    const engine: Engine = { config, store, log, cursorKey, providers: options.providers ?? builtInProviders };
    // Before any job runs or request is served: they read conversations by today's rules.
    await upgradeStoredConversations(engine);
    runners.push(...jobRunners(engine, config));
    await scheduleHousekeeping(engine);
    await scheduleContactSearchIndex(engine);
    await scheduleDeliveryContacts(engine);
    await schedulePendingDeliveries(engine);
    await scheduleCreditDays(engine);
    await scheduleFailedOpenings(engine);
    await scheduleAutoRechargeRequests(engine);

    let stopping = false;
    const service = { jobsRunning: () => runners.every((runner) => runner.active), shuttingDown: () => stopping };
    const streams = new ChangeStreams(engine);
    const app = createApp(engine, admin.token, service, { [CONSOLE_BASE]: consoleRouter(engine, streams) });
    return {
      engine,
      app,
      runners,
      admin,
      streams,
      startJobs: () => runners.forEach((runner) => runner.start()),
      markStopping: () => void (stopping = true),
      drain: async () => {
        // A job of one queue may queue one in another: passes go on until one runs nothing.
        let ran = 0;
        for (;;) {
          const pass = (await Promise.all(runners.map((runner) => runner.drain()))).reduce((a, b) => a + b, 0);
          if (pass === 0) return ran;
          ran += pass;
        }
      },
      working: () => runners.some((runner) => runner.working),
      nextDueAt: async () => {
        const due = await Promise.all(runners.map((runner) => store.jobs.nextDueAt(runner.queue)));
        const known = due.filter((at): at is number => at !== undefined);
        return known.length ? Math.min(...known) : undefined;
      },
      close: async () => {
        streams.close();
        await close();
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}
