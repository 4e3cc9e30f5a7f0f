import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A 1×1 PNG: each contact's photo. */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c63f8cfc0f01f0005000201a5f1cd6a0000000049454e44ae426082',
  'hex',
);

/**
 * Twilio's API and Meta's Graph API on 127.0.0.1, for the provider webhook benchmark: every contact's file and
 * profile is served `delayMs` after it is asked for (a slow file host, a slow Graph), sends at once.
 */
export class SlowProvider {
  url = '';
  /** Files and profiles served. */
  served = 0;
  private sent = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '';
      const later = (type: string, body: string | Buffer) => {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.served += 1;
          if (!res.destroyed) res.writeHead(200, { 'content-type': type }).end(body);
        }, this.delayMs);
        this.timers.add(timer);
      };
      if (req.method === 'GET' && /\/Media\/ME\w+$/.test(path)) return later('image/png', PNG);
      if (req.method === 'GET' && /^\/v23\.0\/\d+\?fields=/.test(path))
        return later('application/json', JSON.stringify({ first_name: 'Marta', last_name: 'Ruiz' }));
      if (req.method === 'POST' && path.endsWith('/Messages.json')) {
        return void res
          .writeHead(201, { 'content-type': 'application/json' })
          .end(JSON.stringify({ sid: `SM${String(++this.sent).padStart(32, '0')}` }));
      }
      if (req.method === 'POST' && path.endsWith('/messages'))
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ message_id: `m_${++this.sent}` }));
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"error":{"message":"Unsupported get request","code":100}}');
    });
  });

  constructor(private readonly delayMs: number) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
