import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from './config.js';
import { newToken } from './domain/secrets.js';

/** The operator's token: LEADCHAT_ADMIN_TOKEN, else one generated on first start into <dataDir>/admin-token (0600). */
export async function adminToken(config: Config): Promise<{ token: string; file?: string }> {
  if (config.adminToken) return { token: config.adminToken };
  const file = adminTokenFile(config);
  try {
    const token = (await readFile(file, 'utf8')).trim();
    if (token) return { token, file };
  } catch {
    // first start
  }
  const token = newToken();
  await writeFile(file, `${token}\n`, { mode: 0o600, flag: 'w' });
  return { token, file };
}

export const adminTokenFile = (config: Config) => path.join(config.dataDir, 'admin-token');
