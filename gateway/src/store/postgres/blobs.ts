import type { BlobStore, ByteSpan } from '../store.js';
import { hasNul, type Query } from './sql.js';

/** Media files in the database, so that whichever process answers a request can serve them. */
export class PostgresBlobs implements BlobStore {
  constructor(private readonly query: Query) {}

  async put(accountId: string, id: string, bytes: Buffer): Promise<void> {
    await this.query(
      `INSERT INTO leadchat_blobs (account_id, id, bytes) VALUES ($1, $2, $3)
       ON CONFLICT (account_id, id) DO UPDATE SET bytes = excluded.bytes`,
      [accountId, id, bytes],
    );
  }

  async get(accountId: string, id: string, part?: ByteSpan): Promise<Buffer | undefined> {
    if (hasNul(accountId) || hasNul(id)) return undefined;
    // substring() counts from 1. Audio, video and images do not compress further, so PostgreSQL keeps them as they
    // are, and reads only the chunks that hold the part.
    const { rows } = part
      ? await this.query(
          'SELECT substring(bytes FROM $3 FOR $4) AS bytes FROM leadchat_blobs WHERE account_id = $1 AND id = $2',
          [accountId, id, part.start + 1, part.end - part.start + 1],
        )
      : await this.query('SELECT bytes FROM leadchat_blobs WHERE account_id = $1 AND id = $2', [accountId, id]);
    return rows[0]?.bytes as Buffer | undefined;
  }

  async deleteAccount(accountId: string): Promise<void> {
    if (hasNul(accountId)) return;
    await this.query('DELETE FROM leadchat_blobs WHERE account_id = $1', [accountId]);
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (hasNul(accountId) || hasNul(id)) return;
    await this.query('DELETE FROM leadchat_blobs WHERE account_id = $1 AND id = $2', [accountId, id]);
  }
}
