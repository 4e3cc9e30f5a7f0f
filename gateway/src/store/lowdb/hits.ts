/** Fixed-window hit counters in memory: the lowdb store serves one process, so they need no sharing. */
export class HitCounter {
  private readonly windows = new Map<string, { hits: number; resetAt: number }>();
  private nextPurge = 0;

  hit(key: string, windowMs: number): { hits: number; resetAt: number } {
    const at = Date.now();
    if (at >= this.nextPurge) this.purge(at, windowMs);
    let window = this.windows.get(key);
    if (!window || window.resetAt <= at) this.windows.set(key, (window = { hits: 0, resetAt: at + windowMs }));
    window.hits += 1;
    return { ...window };
  }

  private purge(at: number, windowMs: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= at) this.windows.delete(key);
    this.nextPurge = at + windowMs;
  }
}
