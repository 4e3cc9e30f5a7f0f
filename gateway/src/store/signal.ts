/**
 * A signal with no payload, for the store's "a job was queued" news. Raised many times in one turn of the event
 * loop (a group commit, a burst of notifications), it calls each listener once, on the next turn.
 */
export class Signal {
  private readonly listeners = new Set<() => void>();
  private scheduled = false;
  private closed = false;

  /** Returns the function that unsubscribes `listener`; subscribing one function twice calls it twice. */
  subscribe(listener: () => void): () => void {
    const entry = () => listener();
    this.listeners.add(entry);
    return () => void this.listeners.delete(entry);
  }

  raise(): void {
    if (this.closed || this.scheduled || this.listeners.size === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.closed) return;
      for (const listener of [...this.listeners]) listener();
    });
  }

  /** Drops every listener: news raised after the store closed, or still on its way, reaches no one. */
  close(): void {
    this.closed = true;
    this.listeners.clear();
  }
}

/** One Signal per name (a job queue's): raising one name calls that name's listeners; raising none calls them all. */
export class Signals {
  private readonly signals = new Map<string, Signal>();
  private closed = false;

  subscribe(name: string, listener: () => void): () => void {
    let signal = this.signals.get(name);
    if (!signal) {
      signal = new Signal();
      if (this.closed) signal.close();
      this.signals.set(name, signal);
    }
    return signal.subscribe(listener);
  }

  raise(name?: string): void {
    if (name === undefined) for (const signal of this.signals.values()) signal.raise();
    else this.signals.get(name)?.raise();
  }

  close(): void {
    this.closed = true;
    for (const signal of this.signals.values()) signal.close();
  }
}
