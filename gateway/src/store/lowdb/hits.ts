import { clockNow } from '../../clock.js';

/** Fixed-window hit counters in memory: the lowdb store serves one process, so they need no sharing. */
export class HitCounter {
  private readonly windows = new Map<string, { hits: number; resetAt: number }>();
  private nextPurge = 0;

  hit(key: string, windowMs: number, weight = 1): { hits: number; resetAt: number } {
    const at = clockNow();
    if (at >= this.nextPurge) this.purge(at, windowMs);
    let window = this.windows.get(key);
    if (!window || window.resetAt <= at) {
      // Reading or taking back starts no window: there is nothing to count against.
      if (weight <= 0) return { hits: 0, resetAt: at + windowMs };
      this.windows.set(key, (window = { hits: 0, resetAt: at + windowMs }));
    }
    window.hits = Math.max(0, window.hits + weight);
    return { ...window };
  }

  private purge(at: number, windowMs: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= at) this.windows.delete(key);
    this.nextPurge = at + windowMs;
  }
}
