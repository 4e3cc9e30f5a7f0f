import type { Query } from './sql.js';

/** After this many hits a process removes the windows that have ended, so the table keeps about the live keys. */
const PURGE_EVERY = 1000;

/** Fixed-window hit counts shared by every process: one atomic upsert per hit. */
export class HitCounter {
  private count = 0;

  constructor(private readonly query: Query) {}

  async hit(key: string, windowMs: number): Promise<{ hits: number; resetAt: number }> {
    const at = Date.now();
    const { rows } = await this.query(
      `INSERT INTO leadchat_hits AS h (key, hits, reset_at) VALUES ($1, 1, $2::bigint + $3::bigint)
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN h.reset_at <= $2 THEN 1 ELSE h.hits + 1 END,
         reset_at = CASE WHEN h.reset_at <= $2 THEN $2::bigint + $3::bigint ELSE h.reset_at END
       RETURNING hits, reset_at`,
      [key, at, Math.max(1, Math.round(windowMs))],
    );
    if (++this.count % PURGE_EVERY === 0) {
      // Best effort: a row left over is harmless, the next hit of its key starts a new window.
      this.query('DELETE FROM leadchat_hits WHERE reset_at <= $1', [at]).catch(() => undefined);
    }
    return { hits: rows[0].hits as number, resetAt: Number(rows[0].reset_at) };
  }
}
