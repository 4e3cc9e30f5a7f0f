import type { Op, Transaction } from './transaction.js';

/**
 * The transactions of one group commit: their ops (in order) become one journal record, and `done` settles for
 * all of them when that record is durable or has failed.
 */
export class Group {
  readonly ops: Op[] = [];
  /** Undo steps of each transaction, kept until the record is durable in case the write fails. */
  readonly undos: Array<Array<() => void>> = [];
  readonly done: Promise<void>;
  resolve!: () => void;
  reject!: (err: Error) => void;
  /** For each document, the index in `ops` of its latest upsert not followed by a removal. */
  private readonly lastUpsert = new Map<string, number>();

  constructor() {
    this.done = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Every caller gets its own derived promise; this one alone must not count as an unhandled rejection.
    this.done.catch(() => undefined);
  }

  get empty(): boolean {
    return this.undos.length === 0;
  }

  add(tx: Transaction): void {
    for (const op of tx.ops) {
      const key = `${op.collection.name}\u0000${op.id}`;
      const earlier = op.doc ? this.lastUpsert.get(key) : undefined;
      // A later version of the same document takes the place of the earlier one: same place in the insertion
      // order, fewer bytes. A removal in between keeps both, so a re-insert still lands at the end on replay.
      if (earlier !== undefined) this.ops[earlier] = op;
      else if (op.doc) this.lastUpsert.set(key, this.ops.push(op) - 1);
      else {
        this.lastUpsert.delete(key);
        this.ops.push(op);
      }
    }
    this.undos.push(tx.undo);
  }

  /** Takes back every transaction of the group, newest first. */
  undoAll(): void {
    for (let t = this.undos.length - 1; t >= 0; t--) {
      const undo = this.undos[t]!;
      for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
    }
  }
}
