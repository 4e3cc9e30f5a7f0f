import https from 'node:https';
import { ADMIN_TOKEN } from './gateway-process.js';

/** Items per page when a benchmark reads a list endpoint back. */
export const PAGE = 200;

interface Reply {
  status: number;
  body: any;
}

/** JSON over keep-alive HTTPS to one gateway, with its API key (or the admin token for /admin paths). */
export class Api {
  private readonly agent: https.Agent;
  private readonly base: URL;

  constructor(
    url: string,
    ca: string,
    sockets: number,
    private apiKey = '',
  ) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets: sockets, ca });
    this.base = new URL(url);
  }

  useKey(apiKey: string): void {
    this.apiKey = apiKey;
  }

  request(method: string, pathname: string, body?: unknown): Promise<Reply> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const auth = pathname.startsWith('/admin/')
      ? { authorization: `Bearer ${ADMIN_TOKEN}` }
      : { 'x-api-key': this.apiKey };
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: this.base.hostname,
          port: this.base.port,
          path: pathname,
          method,
          agent: this.agent,
          headers: {
            ...auth,
            ...(payload === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
          },
        },
        (res) => {
          let text = '';
          res
            .setEncoding('utf8')
            .on('data', (c) => (text += c))
            .on('end', () => {
              try {
                resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
              } catch {
                resolve({ status: res.statusCode ?? 0, body: text });
              }
            });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** A request that must be answered with one of `ok`; its body. */
  async expect(method: string, pathname: string, body: unknown, ok: number[]): Promise<any> {
    const reply = await this.request(method, pathname, body);
    if (!ok.includes(reply.status))
      throw new Error(`${method} ${pathname}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
    return reply.body;
  }

  /** Every item of a list endpoint, page by page (`?limit=&cursor=`). */
  async all<T>(pathname: string): Promise<T[]> {
    const items: T[] = [];
    const sep = pathname.includes('?') ? '&' : '?';
    let cursor: string | null = null;
    do {
      const page = (await this.expect(
        'GET',
        `${pathname}${sep}limit=${PAGE}${cursor ? `&cursor=${cursor}` : ''}`,
        undefined,
        [200],
      )) as { data: T[]; nextCursor: string | null };
      items.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    return items;
  }

  close(): void {
    this.agent.destroy();
  }
}
