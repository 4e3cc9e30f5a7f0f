import type { Writable } from 'node:stream';
import type pg from 'pg';
import { prepared } from './sql.js';
import { MAX_PARTS, parted, together } from './together.js';

/** A statement sent ahead: what its failure means to the transaction (a conflict, most often). */
export interface Ahead {
  text: string;
  values?: unknown[];
  /** The error the transaction fails with when this statement fails; the database's own when absent. */
  meaning?: (err: unknown) => unknown;
  /** The write as one part of a statement with the transaction's other writes (see oneStatement). */
  part?: Part;
}

/** A write as one part of a transaction's one statement (see oneStatement). */
export interface Part {
  /** The data-modifying statement, with RETURNING when `then` reads its rows; its own parameters from $1. */
  text: string;
  /** The table it writes, as the statement names it. */
  table: string;
  /**
   * What the statement does with the part's rows: `changed`, fail as a race lost when there is none (a write that
   * checked the version read); `notify`, tell the job runners of each row's queue (a job queued).
   */
  then?: 'changed' | 'notify';
}

interface Waiting extends Ahead {
  /** Names a statement that a later one may take the place of while both wait (see replace). */
  key?: string;
  /** Set for a statement the transaction waits for. */
  answer?: Answer;
  /** A read that takes no lock: it may be answered by one statement with the reads next to it (see together). */
  shared?: boolean;
}

interface Answer {
  resolve: (result: pg.QueryResult) => void;
  reject: (err: unknown) => void;
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
  /** Whether the transaction block was opened: until then, every statement sent was a read that commits nothing. */
  begun = false;

  /**
   * @param opening The statement that opens the transaction block (BEGIN): sent first with the first write or locking
   * read, so that reads before them take no part in it, and a transaction that reads, then writes once, needs none
   * (see oneStatement).
   */
  constructor(
    private readonly client: pg.PoolClient,
    private readonly failed: (err: unknown) => void,
    private readonly opening: Ahead,
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

  /**
   * Queues a statement and sends the queue once the current turn has asked for what it needs; answers this one.
   * `shared`: a read that takes no lock (see Waiting).
   */
  now(text: string, values?: unknown[], shared = false): Promise<pg.QueryResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ text, values, shared, answer: { resolve, reject } });
      if (this.flushing) return;
      this.flushing = true;
      queueMicrotask(() => this.flush());
    });
  }

  /** Forgets the queued statements: the transaction ends without them. */
  discard(): void {
    this.queue = [];
  }

  /** The statements waiting to go out, in their order. */
  get waiting(): readonly Ahead[] {
    return this.queue;
  }

  /** Sends `statement` on its own, outside a transaction block: its failure is the caller's to hear. */
  alone(statement: Ahead): Promise<pg.QueryResult> {
    return this.client.query(prepared(statement.text, statement.values));
  }

  private flush(): void {
    this.flushing = false;
    const batch = this.queue;
    this.queue = [];
    if (!this.begun && batch.some((statement) => !statement.shared)) {
      batch.unshift(this.opening);
      this.begun = true;
    }
    // Each answer settles once every statement before it was heard, so that a failure sent ahead is known first.
    let heard: Promise<unknown> = Promise.resolve();
    const stream = (this.client as unknown as { connection?: { stream?: Writable } }).connection?.stream;
    // node-postgres corks the socket for the messages of one statement only: corked here, the batch is one write.
    stream?.cork();
    try {
      for (let at = 0; at < batch.length; ) {
        // Reads next to each other in the queue go as one statement: nothing of the transaction comes between them.
        let end = at + 1;
        while (batch[at]!.shared && end < batch.length && end - at < MAX_PARTS && batch[end]!.shared) end++;
        if (end - at > 1) {
          const reads = batch.slice(at, end);
          const joined = together(reads);
          heard = this.send(
            joined.text,
            joined.values,
            heard,
            (result) => parted(result, reads.length),
            reads.map((read) => read.answer!),
          );
        } else {
          const statement = batch[at]!;
          const { answer } = statement;
          heard = this.send(
            statement.text,
            statement.values,
            heard,
            (result) => [result],
            answer ? [answer] : [],
            statement,
          );
        }
        at = end;
      }
    } finally {
      stream?.uncork();
    }
  }

  /**
   * Sends one statement and hands its answer, split by `split`, to `answers` once every statement before it was
   * heard (`before`); answers the promise that this one was heard too. A failure of a statement no one waits for
   * goes to `failed`.
   */
  private send(
    text: string,
    values: unknown[] | undefined,
    before: Promise<unknown>,
    split: (result: pg.QueryResult) => pg.QueryResult[],
    answers: Answer[],
    ahead?: Ahead,
  ): Promise<unknown> {
    const result = this.client.query(prepared(text, values));
    if (answers.length) {
      result.then(
        (value) =>
          before.then(() => {
            const parts = split(value);
            answers.forEach((answer, i) => answer.resolve(parts[i]!));
          }),
        (err: unknown) => before.then(() => answers.forEach((answer) => answer.reject(err))),
      );
    }
    return result.then(
      () => before,
      (err: unknown) => before.then(() => (answers.length ? undefined : this.failed(ahead?.meaning?.(err) ?? err))),
    );
  }
}
