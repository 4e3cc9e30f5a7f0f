import type { Change } from './store.js';

/**
 * The changes one transaction published (Tx.publish), kept until its commit. A change under a key already
 * published takes the earlier one's place: what the transaction tells is each document as it ends up, in the order
 * the documents were first told of.
 */
export class Published {
  private readonly changes: Array<{ accountId: string; change: Change }> = [];
  private readonly keys = new Map<string, number>();

  get empty(): boolean {
    return this.changes.length === 0;
  }

  add(accountId: string, change: Change, key?: string): void {
    if (key === undefined) return void this.changes.push({ accountId, change });
    const scoped = `${accountId}\u0000${key}`;
    const at = this.keys.get(scoped);
    if (at === undefined) this.keys.set(scoped, this.changes.push({ accountId, change }) - 1);
    else this.changes[at] = { accountId, change };
  }

  /** The changes by account, each account's in order (a transaction almost always changes one account's). */
  byAccount(): Map<string, Change[]> {
    const accounts = new Map<string, Change[]>();
    for (const { accountId, change } of this.changes) {
      const list = accounts.get(accountId);
      if (list) list.push(change);
      else accounts.set(accountId, [change]);
    }
    return accounts;
  }
}
