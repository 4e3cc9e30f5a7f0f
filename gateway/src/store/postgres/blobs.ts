import type { BlobStore } from '../store.js';
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

  async get(accountId: string, id: string): Promise<Buffer | undefined> {
    if (hasNul(accountId) || hasNul(id)) return undefined;
    const { rows } = await this.query('SELECT bytes FROM leadchat_blobs WHERE account_id = $1 AND id = $2', [
      accountId,
      id,
    ]);
    return rows[0]?.bytes as Buffer | undefined;
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (hasNul(accountId) || hasNul(id)) return;
    await this.query('DELETE FROM leadchat_blobs WHERE account_id = $1 AND id = $2', [accountId, id]);
  }
}
