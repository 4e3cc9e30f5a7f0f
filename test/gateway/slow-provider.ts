import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { poll } from './api-support';

/** A 1×1 PNG: a contact's photo. */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c63f8cfc0f01f0005000201a5f1cd6a0000000049454e44ae426082',
  'hex',
);

/** The name Meta's profile API gives every contact here. */
export const PROFILE = { first_name: 'Marta', last_name: 'Ruiz' };

export interface SlowRequest {
  method: string;
  path: string;
}

/**
 * Stands in for Twilio's API and Meta's Graph API on 127.0.0.1, with the files and profiles they host served slowly:
 * each such read is held `delayMs` (5 s), or until the test releases it. Sends are answered at once.
 */
export class SlowProvider {
  readonly requests: SlowRequest[] = [];
  /** Files and profiles served so far. */
  served = 0;
  url = '';
  private held: Array<() => void> = [];
  private holding = true;
  private sent = 0;
  private readonly server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const received = { method: req.method ?? '', path: req.url ?? '' };
      this.requests.push(received);
      const answer = this.answer(received);
      if (!answer.slow) return void res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
      const serve = () => {
        this.served += 1;
        if (!res.destroyed) res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
      };
      if (!this.holding) return serve();
      const timer = setTimeout(() => release(), this.delayMs);
      const release = () => {
        clearTimeout(timer);
        this.held = this.held.filter((r) => r !== release);
        serve();
      };
      this.held.push(release);
    });
  });

  constructor(private readonly delayMs = 5_000) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Serves every file and profile held now, and the later ones at once until `hold`. */
  release(): void {
    this.holding = false;
    for (const release of [...this.held]) release();
  }

  /** Files and profiles are held again. */
  hold(): void {
    this.holding = true;
  }

  /** Waits until a request matching `path` has come (bounded): the gateway is reading it. */
  async waitFor(path: RegExp): Promise<void> {
    const found = await poll(
      async () => this.requests.some((r) => path.test(r.path)),
      (yes) => yes,
    );
    if (!found) throw new Error(`no request for ${path} came`);
  }

  /** How many requests matching `path` came. */
  count(path: RegExp): number {
    return this.requests.filter((r) => path.test(r.path)).length;
  }

  /** A Twilio media address of this stand-in. */
  twilioMedia(accountSid: string, name: string): string {
    return `${this.url}/2010-04-01/Accounts/${accountSid}/Messages/MM${name}/Media/ME${name}`;
  }

  close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private answer({ method, path }: SlowRequest): {
    status: number;
    type: string;
    body: string | Buffer;
    slow: boolean;
  } {
    const json = (status: number, body: unknown, slow = false) => ({
      status,
      type: 'application/json',
      body: JSON.stringify(body),
      slow,
    });
    if (method === 'GET' && /\/Messages\/MM\w+\/Media\/ME\w+$/.test(path))
      return { status: 200, type: 'image/png', body: PNG, slow: true };
    if (method === 'GET' && /^\/v23\.0\/\d+\?fields=/.test(path)) return json(200, PROFILE, true);
    if (method === 'POST' && path.endsWith('/Messages.json'))
      return json(201, { sid: `SM${String(++this.sent).padStart(32, '0')}`, status: 'queued' });
    if (method === 'POST' && path.endsWith('/messages'))
      return json(200, { recipient_id: '1', message_id: `m_${++this.sent}` });
    return json(404, { error: { message: 'Unsupported get request', code: 100 } });
  }
}
