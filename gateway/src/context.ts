import type { Config } from './config.js';
import type { Logger } from './log.js';
import type { Store } from './store/store.js';

/** What every part of the running gateway is handed: typed config, the store, the logger, and the job wake-up. */
export interface Gateway {
  config: Config;
  store: Store;
  log: Logger;
  /** Tells the job workers that a job was queued, so they need not wait for their next poll. */
  wakeJobs(): void;
}
