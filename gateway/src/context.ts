import type { Config } from './config.js';
import type { Logger } from './log.js';
import type { Store } from './store/store.js';

/** What every part of the running gateway is handed: typed config, the store and the logger. */
export interface Gateway {
  config: Config;
  store: Store;
  log: Logger;
  /** Signs page cursors; the deployment's own, shared by every process (see http/paging.ts). */
  cursorKey: Buffer;
}
