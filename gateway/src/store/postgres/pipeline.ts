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

/**
 * The statements of one transaction, on a connection in pipeline mode. A statement whose answer the transaction
 * need not wait for (BEGIN, a write whose outcome it knows in advance) waits here until the next one it does
 * wait for: both go out in one write to the socket, and the server answers them in order. A transaction thus
 * costs one round trip per decision, not one per statement; a write sent ahead that fails makes the server refuse
 * every later statement of the transaction, so its failure is never lost: `failed` hears it first.
 */
export class Pipeline {
  private ahead: Ahead[] = [];
  /** Whether anything was sent: a transaction that sent nothing has nothing to commit or roll back. */
  sent = false;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly failed: (err: unknown) => void,
  ) {}

  /** Queues a statement whose answer the transaction does not wait for. */
  later(statement: Ahead): void {
    this.ahead.push(statement);
  }

  /**
   * Sends the queued statements and this one, together; answers this one once every queued one was heard (the
   * server answers in order, so waiting for them costs nothing).
   */
  async now(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    const queued = this.ahead;
    this.ahead = [];
    const heard: Array<Promise<void>> = [];
    let answer!: Promise<pg.QueryResult>;
    this.corked(() => {
      for (const statement of queued) {
        heard.push(this.client.query(prepared(statement.text, statement.values)).then(() => undefined, (err: unknown) => this.failed(statement.meaning?.(err) ?? err)));
      }
      answer = this.client.query(prepared(text, values));
    });
    try {
      return await answer;
    } finally {
      await Promise.all(heard);
    }
  }

  /** Forgets the queued statements: the transaction ends without them. */
  discard(): void {
    this.ahead = [];
  }

  /**
   * The statements given one after the other in `send` leave in one write: node-postgres corks the socket for the
   * messages of one statement only.
   */
  private corked(send: () => void): void {
    this.sent = true;
    const stream = (this.client as unknown as { connection?: { stream?: Writable } }).connection?.stream;
    stream?.cork();
    try {
      send();
    } finally {
      stream?.uncork();
    }
  }
}
