import type pg from 'pg';
import { Changes } from '../change-feed.js';
import type { Published } from '../published.js';
import type { Change } from '../store.js';

/** The channel committed changes are notified on, to every process of the database (this one too). */
export const CHANGES_CHANNEL = 'leadchat_changes';

/** Below PostgreSQL's limit of 8000 bytes per notification payload (in the server's encoding, UTF-8). */
const MAX_PAYLOAD_BYTES = 7_900;
/** Accounts whose changes could not be sent, remembered one by one up to this many; past it, all are told missed. */
const MAX_UNSENT_ACCOUNTS = 1_000;

/** An account's changes, or (none) word that some of them went untold. */
type Entry = [accountId: string, ...changes: Change[]];

/**
 * The changes transactions published (Tx.publish), told to every process: each committed transaction's are notified
 * on CHANGES_CHANNEL once its COMMIT succeeded (nothing uncommitted is ever told), and every process, this one
 * included, hears them on the connection that listens (JobNotifications) and tells its feed.
 *
 * Why after the commit, and not with a NOTIFY inside the transaction: PostgreSQL serializes the commits of every
 * transaction that notifies, database-wide (a lock taken before the commit record and held through its WAL flush).
 * Measured with 16 concurrent writers, a pg_notify in each transaction cut commits from 2,300–3,000/s to 840–1,120/s,
 * and the gateway's ingest saw 44 % of its statements wait on that lock. Here the changes of the commits that end
 * within one turn go in one statement, on the listening connection, whose own commits need no flush
 * (synchronous_commit off: a notification is not data). The price: the changes of a commit whose process dies before
 * the next turn go untold to other processes, and two processes' changes of one conversation may cross on the way.
 * A change that could not be sent (the connection was down) is told as missed to every process once it is back.
 */
export class ChangeNotifications {
  readonly feed = new Changes();
  private client: pg.Client | undefined;
  private queue: Entry[] = [];
  private sending = false;
  private readonly unsent = new Set<string>();
  private allUnsent = false;

  /** A transaction committed: its changes go out with the others of this turn. */
  committed(published: Published): void {
    for (const [accountId, changes] of published.byAccount()) this.queue.push([accountId, ...changes]);
    this.send();
  }

  /** The connection listens (again); what could not be sent while it did not is told as missed. */
  listening(client: pg.Client): void {
    this.client = client;
    void client.query('SET synchronous_commit TO off').catch(() => undefined);
    if (this.allUnsent) this.queue.unshift([] as unknown as Entry);
    else for (const accountId of this.unsent) this.queue.unshift([accountId]);
    this.unsent.clear();
    this.allUnsent = false;
    this.send();
  }

  lost(): void {
    this.client = undefined;
  }

  /** A notification heard: its changes, to this process's listeners. */
  heard(payload: string | undefined): void {
    if (!this.feed.heard) return;
    let entries: unknown;
    try {
      entries = JSON.parse(payload ?? '');
    } catch {
      entries = undefined;
    }
    if (!Array.isArray(entries)) return this.feed.missed();
    for (const entry of entries as unknown[]) {
      if (!Array.isArray(entry)) continue;
      if (entry.length === 0) this.feed.missed();
      else if (typeof entry[0] !== 'string') continue;
      else if (entry.length === 1) this.feed.missed(entry[0]);
      else this.feed.tell(entry[0], entry.slice(1) as Change[]);
    }
  }

  close(): void {
    this.feed.close();
    this.client = undefined;
    this.queue = [];
  }

  /** One statement at a time: what commits while it is on its way goes with the next. */
  private send(): void {
    if (this.sending || this.queue.length === 0) return;
    const client = this.client;
    if (!client) return this.keepUnsent(this.queue.splice(0));
    this.sending = true;
    setImmediate(() => {
      const batch = this.queue.splice(0);
      client
        .query(
          `SELECT pg_notify('${CHANGES_CHANNEL}', payload) FROM unnest($1::text[]) WITH ORDINALITY AS p(payload, n) ORDER BY n`,
          [payloadsOf(batch)],
        )
        .catch(() => this.keepUnsent(batch))
        .finally(() => {
          this.sending = false;
          this.send();
        });
    });
  }

  private keepUnsent(entries: Entry[]): void {
    for (const [accountId] of entries) {
      if (accountId === undefined || this.unsent.size >= MAX_UNSENT_ACCOUNTS) this.allUnsent = true;
      else this.unsent.add(accountId);
    }
  }
}

/**
 * Payloads of at most MAX_PAYLOAD_BYTES, each a JSON array of entries `[accountId, ...changes]`; an entry of an
 * account alone says that some of its changes went untold (one too big to tell, or not sent), and an empty one that
 * any account's may have.
 */
export function payloadsOf(entries: Entry[]): string[] {
  const payloads: string[] = [];
  let texts: string[] = [];
  let bytes = 2;
  const add = (text: string) => {
    const size = Buffer.byteLength(text) + 1;
    if (bytes + size > MAX_PAYLOAD_BYTES && texts.length > 0) {
      payloads.push(`[${texts.join(',')}]`);
      texts = [];
      bytes = 2;
    }
    texts.push(text);
    bytes += size;
  };
  for (const [accountId, ...changes] of entries) {
    if (accountId === undefined) {
      add('[]');
      continue;
    }
    const account = JSON.stringify(accountId);
    if (changes.length === 0) add(`[${account}]`);
    let told: string[] = [];
    let size = Buffer.byteLength(account) + 2;
    for (const change of changes) {
      const text = JSON.stringify(change);
      const length = Buffer.byteLength(text) + 1;
      if (size + length > MAX_PAYLOAD_BYTES - 2 && told.length > 0) {
        add(`[${account},${told.join(',')}]`);
        told = [];
        size = Buffer.byteLength(account) + 2;
      }
      // Alone too big to tell: told as missed.
      if (size + length > MAX_PAYLOAD_BYTES - 2) add(`[${account}]`);
      else {
        told.push(text);
        size += length;
      }
    }
    if (told.length > 0) add(`[${account},${told.join(',')}]`);
  }
  if (texts.length > 0) payloads.push(`[${texts.join(',')}]`);
  return payloads;
}
