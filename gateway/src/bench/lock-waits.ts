/**
 * How much of the gateway's time in PostgreSQL is spent waiting on locks: pg_stat_activity sampled every few
 * milliseconds while a load runs. A sample counts each gateway connection running a statement; of those, the ones
 * waiting on a lock (wait_event_type 'Lock'), and which statements they were (a read that only reads never waits on
 * a row lock: a wait on one would show here as a plain SELECT).
 */
import pg from 'pg';

export interface LockWaits {
  /** Share of running statements found waiting on a lock. */
  share: number;
  /** The statements found waiting, by their first words, with how many samples caught each. */
  waiting: Array<{ statement: string; samples: number }>;
}

const EVERY_MS = 5;

/** Samples the database's gateway connections until `stop()`; answers what it saw. */
export async function sampleLockWaits(url: string): Promise<{ stop: () => Promise<LockWaits> }> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  let running = 0;
  let waiting = 0;
  const byStatement = new Map<string, number>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await db.query<{ lock: boolean; query: string }>(
        `SELECT wait_event_type = 'Lock' AS lock, query FROM pg_stat_activity
          WHERE application_name = 'leadchat-gateway' AND state = 'active' AND pid <> pg_backend_pid()`,
      );
      running += rows.length;
      for (const row of rows) {
        if (!row.lock) continue;
        waiting += 1;
        const statement = row.query.replace(/\s+/g, ' ').trim().split(' ').slice(0, 4).join(' ');
        byStatement.set(statement, (byStatement.get(statement) ?? 0) + 1);
      }
      await new Promise((resolve) => setTimeout(resolve, EVERY_MS));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      await db.end();
      return {
        share: running ? waiting / running : 0,
        waiting: [...byStatement]
          .map(([statement, samples]) => ({ statement, samples }))
          .sort((a, b) => b.samples - a.samples),
      };
    },
  };
}
