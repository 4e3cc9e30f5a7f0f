import { AsyncLocalStorage } from 'node:async_hooks';
import type { Store } from './store.js';

const background = new AsyncLocalStorage<true>();

/**
 * Runs `fn` as background work (the job runners' claims and jobs): on PostgreSQL, what it asks of the database takes
 * connections from a pool of their own, so a burst of jobs never keeps a request waiting for a connection. The
 * embedded store runs it as any other work, and does not mark it: once an AsyncLocalStorage has run anything, every
 * promise of the process pays for the tracking (about 3 % of an incoming message's CPU), which buys it nothing.
 */
export const inBackground = <R>(backend: Store['backend'], fn: () => Promise<R>): Promise<R> =>
  backend === 'postgres' ? background.run(true, fn) : fn();

/** Whether the caller is background work (see inBackground). */
export const isBackground = (): boolean => background.getStore() === true;
