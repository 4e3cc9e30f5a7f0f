import type { Query } from './sql.js';
import { clockNow } from '../../clock.js';

/** After this many hits a process removes the windows that have ended, so the table keeps about the live keys. */
const PURGE_EVERY = 1000;

/** Fixed-window hit counts shared by every process: one atomic statement per hit, read or take-back. */
export class HitCounter {
  private count = 0;

  constructor(private readonly query: Query) {}

  async hit(key: string, windowMs: number, weight = 1): Promise<{ hits: number; resetAt: number }> {
    const at = clockNow();
    if (weight <= 0) return this.readOrTakeBack(key, windowMs, weight, at);
    const { rows } = await this.query(
      `INSERT INTO leadchat_hits AS h (key, hits, reset_at) VALUES ($1, $4, $2::bigint + $3::bigint)
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN h.reset_at <= $2 THEN $4 ELSE h.hits + $4 END,
         reset_at = CASE WHEN h.reset_at <= $2 THEN $2::bigint + $3::bigint ELSE h.reset_at END
       RETURNING hits, reset_at`,
      [key, at, Math.max(1, Math.round(windowMs)), weight],
    );
    if (++this.count % PURGE_EVERY === 0) {
      // Best effort: a row left over is harmless, the next hit of its key starts a new window.
      this.query('DELETE FROM leadchat_hits WHERE reset_at <= $1', [at]).catch(() => undefined);
    }
    return { hits: rows[0].hits as number, resetAt: Number(rows[0].reset_at) };
  }

  /** Never inserts: reading or taking back starts no window, so a key with none stays absent. */
  private async readOrTakeBack(
    key: string,
    windowMs: number,
    weight: number,
    at: number,
  ): Promise<{ hits: number; resetAt: number }> {
    const { rows } =
      weight === 0
        ? await this.query('SELECT hits, reset_at FROM leadchat_hits WHERE key = $1 AND reset_at > $2', [key, at])
        : await this.query(
            'UPDATE leadchat_hits SET hits = GREATEST(0, hits + $3) WHERE key = $1 AND reset_at > $2 RETURNING hits, reset_at',
            [key, at, weight],
          );
    if (!rows[0]) return { hits: 0, resetAt: at + windowMs };
    return { hits: rows[0].hits as number, resetAt: Number(rows[0].reset_at) };
  }
}
