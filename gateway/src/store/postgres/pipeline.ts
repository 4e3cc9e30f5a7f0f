import type { Writable } from 'node:stream';
import type pg from 'pg';
import { prepared } from './sql.js';

/** A statement sent ahead: what its failure means to the transaction (a conflict, most often). */
export interface Ahead {
  text: string;
  values?: unknown[];
  /** The error the transaction fails with when this statement fails; the database's own when absent. */
  meaning?: (err: unknown) => unknown;
}

interface Waiting extends Ahead {
  /** Names a statement that a later one may take the place of while both wait (see replace). */
  key?: string;
  /** Set for a statement the transaction waits for. */
  answer?: { resolve: (result: pg.QueryResult) => void; reject: (err: unknown) => void };
}

/**
 * The statements of one transaction, on a connection in pipeline mode. A statement whose answer the transaction
 * need not wait for (BEGIN, a write whose outcome it knows in advance) waits here until one it does wait for; the
 * statements asked for in the same turn of the event loop (reads started together, with Promise.all) join them,
 * and all go out in one write to the socket. The server answers them in order. A transaction thus costs one round
 * trip per decision, not one per statement. A statement sent ahead that fails makes the server refuse every later
 * statement of the transaction, so its failure is never lost: `failed` hears it before any later answer arrives.
 */
export class Pipeline {
  private queue: Waiting[] = [];
  private flushing = false;
  /** Whether anything was sent: a transaction that sent nothing has nothing to roll back. */
  sent = false;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly failed: (err: unknown) => void,
  ) {}

  /** Queues a statement whose answer the transaction does not wait for; `key` lets a later one replace it. */
  later(statement: Ahead, key?: string): void {
    this.queue.push({ ...statement, key });
  }

  /**
   * Puts `statement` in the place of the last statement queued under `key`, as long as that one has not gone out;
   * false when it has (the caller then queues a statement of its own).
   */
  replace(key: string, statement: Ahead): boolean {
    for (let at = this.queue.length - 1; at >= 0; at--) {
      if (this.queue[at]!.key !== key) continue;
      this.queue[at] = { ...statement, key };
      return true;
    }
    return false;
  }

  /** Queues a statement and sends the queue once the current turn has asked for what it needs; answers this one. */
  now(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ text, values, answer: { resolve, reject } });
      if (this.flushing) return;
      this.flushing = true;
      queueMicrotask(() => this.flush());
    });
  }

  /** Forgets the queued statements: the transaction ends without them. */
  discard(): void {
    this.queue = [];
  }

  private flush(): void {
    this.flushing = false;
    const batch = this.queue;
    this.queue = [];
    this.sent = true;
    // Each answer settles once every statement before it was heard, so that a failure sent ahead is known first.
    let heard: Promise<unknown> = Promise.resolve();
    const stream = (this.client as unknown as { connection?: { stream?: Writable } }).connection?.stream;
    // node-postgres corks the socket for the messages of one statement only: corked here, the batch is one write.
    stream?.cork();
    try {
      for (const statement of batch) {
        const result = this.client.query(prepared(statement.text, statement.values));
        const before = heard;
        const { answer } = statement;
        if (answer) {
          result.then(
            (value) => before.then(() => answer.resolve(value)),
            (err: unknown) => before.then(() => answer.reject(err)),
          );
        }
        heard = result.then(
          () => before,
          (err: unknown) => before.then(() => (answer ? undefined : this.failed(statement.meaning?.(err) ?? err))),
        );
      }
    } finally {
      stream?.uncork();
    }
  }
}
