import type { Change, ChangeFeed, ChangeListener } from './store.js';

/**
 * The listeners of a store's committed changes. Told in the turn that learns of a commit, in commit order; a
 * listener that throws does not keep the others from hearing, nor fails the commit that told it.
 */
export class Changes implements ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();
  private closed = false;

  subscribe(listener: ChangeListener): () => void {
    const entry: ChangeListener = { changed: (a, c) => listener.changed(a, c), missed: (a) => listener.missed(a) };
    if (!this.closed) this.listeners.add(entry);
    return () => void this.listeners.delete(entry);
  }

  get heard(): boolean {
    return this.listeners.size > 0;
  }

  tell(accountId: string, changes: readonly Change[]): void {
    for (const listener of this.listeners) guarded(() => listener.changed(accountId, changes));
  }

  missed(accountId?: string): void {
    for (const listener of this.listeners) guarded(() => listener.missed(accountId));
  }

  /** News still on its way once the store closed reaches no one. */
  close(): void {
    this.closed = true;
    this.listeners.clear();
  }
}

function guarded(tell: () => void): void {
  try {
    tell();
  } catch (err) {
    process.emitWarning(`store: a change listener failed: ${(err as Error).message}`);
  }
}
