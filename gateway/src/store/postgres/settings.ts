import type { GatewaySettings } from '../store.js';
import { hasNul, type Query } from './sql.js';

/** Gateway settings in the database: a process that stores a name second keeps the first one's value. */
export class PostgresSettings implements GatewaySettings {
  constructor(private readonly query: Query) {}

  async get(name: string): Promise<string | undefined> {
    if (hasNul(name)) return undefined;
    const { rows } = await this.query('SELECT value FROM leadchat_settings WHERE name = $1', [name]);
    return rows[0]?.value as string | undefined;
  }

  async putIfAbsent(name: string, value: string): Promise<string> {
    const { rows } = await this.query(
      'INSERT INTO leadchat_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING value',
      [name, value],
    );
    if (rows[0]) return value;
    // A statement of its own: the insert's snapshot predates a row committed while it waited for that row.
    const held = await this.get(name);
    if (held === undefined) throw new Error(`store: setting "${name}" was neither stored nor found`);
    return held;
  }
}
