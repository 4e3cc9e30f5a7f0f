/** What a gateway's store wrote, read from its `/metrics`: how much each message costs the store, by collection. */
import https from 'node:https';
import { ADMIN_TOKEN } from './gateway-process.js';

const WRITES = /^leadchat_store_writes_total\{collection="([^"]+)"\} (\S+)$/gm;

/** The documents the store wrote so far, by collection; undefined for a build that does not count them. */
export function storeWrites(url: string, ca: string): Promise<Map<string, number> | undefined> {
  return new Promise((resolve, reject) => {
    https
      .get(`${url}/metrics`, { ca, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }, (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (chunk: string) => (text += chunk))
          .on('end', () => {
            if (res.statusCode !== 200) return reject(new Error(`${url}/metrics answered ${res.statusCode}`));
            if (!text.includes('leadchat_store_writes_total')) return resolve(undefined);
            resolve(new Map([...text.matchAll(WRITES)].map(([, collection, value]) => [collection!, Number(value)])));
          });
      })
      .on('error', reject);
  });
}

/** What was written between two readings. */
export function writesBetween(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  return new Map([...after].map(([collection, n]) => [collection, n - (before.get(collection) ?? 0)]));
}

/** Writes per message, "4.00 (messages 1.50, conversations 1.00, …)", the collections most written first. */
export function perMessage(writes: Map<string, number>, messages: number): string {
  const each = [...writes].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
  const total = each.reduce((sum, [, n]) => sum + n, 0);
  const share = (n: number) => (n / messages).toFixed(2);
  return `${share(total)} (${each.map(([collection, n]) => `${collection} ${share(n)}`).join(', ')})`;
}
