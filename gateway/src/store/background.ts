import { AsyncLocalStorage } from 'node:async_hooks';

const background = new AsyncLocalStorage<true>();

/**
 * Runs `fn` as background work (the job runners' claims and jobs): on PostgreSQL, what it asks of the database takes
 * connections from a pool of their own, so a burst of jobs never keeps a request waiting for a connection. The
 * embedded store runs it as any other work.
 */
export const inBackground = <R>(fn: () => Promise<R>): Promise<R> => background.run(true, fn);

/** Whether the caller is background work (see inBackground). */
export const isBackground = (): boolean => background.getStore() === true;
