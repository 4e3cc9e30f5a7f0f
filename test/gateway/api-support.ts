import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import {
  advanceClock,
  createAccount,
  removeDir,
  request,
  untilIdle,
  type Reply,
  type RequestOptions,
  type TestGateway,
  type TestAccount,
  trusting,
} from '../helpers/gateway';
import { gatewayNow, startInProcess, step, type InProcessGateway, type InProcessOptions } from '../helpers/in-process';

/**
 * Shared pieces of the /v1 API tests: one gateway per test file, a local webhook receiver, Standard Webhooks
 * verification, bounded polling and a real PNG file.
 */

/**
 * Starts a gateway in this process (in-process.ts) before the file's tests and stops it (and removes its data) after
 * them.
 */
export function useGateway(
  env: Record<string, string> = {},
  options: InProcessOptions = {},
): { readonly gw: InProcessGateway } {
  const holder = {} as { gw: InProcessGateway };
  beforeAll(async () => {
    holder.gw = await startInProcess(env, undefined, options);
  }, 30_000);
  afterAll(async () => {
    if (!holder.gw) return;
    await holder.gw.stop();
    removeDir(holder.gw.dataDir);
  });
  return holder;
}

/** A request with the account's key in the x-api-key header unless `opts` says otherwise. */
export function api<T = any>(
  gw: TestGateway,
  account: Pick<TestAccount, 'apiKey'> | undefined,
  method: string,
  path: string,
  opts: RequestOptions = {},
): Promise<Reply<T>> {
  return request<T>(gw, method, path.startsWith('/') ? path : `/v1/${path}`, { apiKey: account?.apiKey, ...opts });
}

export { advanceClock, createAccount, request, untilIdle };

/** A clinic's campaign on the `web-chat` custom channel, whose bot answers one FAQ: its opening hours. */
export async function clinicCampaign(gw: TestGateway, account: Pick<TestAccount, 'apiKey'>): Promise<any> {
  const created = await api(gw, account, 'POST', 'campaigns', {
    body: {
      name: 'Clinic',
      channel: 'custom',
      customChannel: 'web-chat',
      bot: { faqs: [{ question: 'What are your opening hours?', answer: 'We are open 9 to 5, Monday to Friday.' }] },
    },
  });
  expect(created.status).toBe(201);
  return created.body;
}

/** What a webhook subscription tells of itself before any delivery to it. */
export const NEW_WEBHOOK = {
  status: 'enabled',
  disabledAt: null,
  disabledReason: null,
  lastSuccessAt: null,
  lastFailure: null,
  consecutiveFailures: 0,
  failingSince: null,
};

/** What a contact is told at a hand-off where neither the campaign nor the account sets words of its own. */
export const HANDOFF_NOTICE = 'Thanks for your message! A member of our team will get back to you shortly.';
export type { InProcessGateway, Reply, TestAccount, TestGateway };

/** A GET whose body is kept as bytes (media files). */
export function getBytes(
  gw: TestGateway,
  account: Pick<TestAccount, 'apiKey'>,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(path, gw.url),
      { headers: { ...headers, 'x-api-key': account.apiKey }, ...trusting(gw.ca), agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * Asserts the general error shape `{error: {code, message}}` (with `fields` on a 400 about the request's fields and a
 * 409 about the limits a change would pass, each `{field, code, message}` and a `limit` where one applies), and no
 * trace of a stack.
 */
export function expectApiError(res: Reply, status: number, code?: string): void {
  const fields: unknown[] | undefined = res.body?.error?.fields;
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: {
      error: {
        code: code ?? expect.any(String),
        message: expect.any(String),
        ...(fields === undefined ? {} : { fields: expect.any(Array) }),
      },
    },
  });
  if (fields !== undefined) {
    expect([400, 409]).toContain(status);
    expect(fields.length).toBeGreaterThan(0);
    for (const field of fields as Array<Record<string, unknown>>) {
      expect(field).toEqual({
        field: expect.any(String),
        code: expect.any(String),
        message: expect.any(String),
        ...('limit' in field ? { limit: expect.any(Number) } : {}),
      });
    }
  }
  expectNoStack(res);
}

/** Asserts the incoming-message endpoint's error shape `{error: "<message>"}`. */
export function expectPlainError(res: Reply, status: number): void {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: { error: expect.any(String) } });
  expect(res.body.error.length).toBeGreaterThan(0);
  expectNoStack(res);
}

export function expectNoStack(res: Reply): void {
  expect(res.text).not.toMatch(/\n\s+at |node_modules|\.js:\d+|\.ts:\d+/);
}

/**
 * Re-reads `read` until `done` holds, for at most `timeoutMs`; returns the last value. The gateways of this process
 * are given the time instead of waiting for it: between reads, their clock moves to their next job due within
 * `timeoutMs` of the first read, and what is due runs (in-process.ts's step); only what hangs on no job (an answer
 * on its way) is waited for.
 */
export async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  const startedAt = gatewayNow();
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    if (startedAt === undefined || !(await step(startedAt + timeoutMs))) await new Promise((r) => setTimeout(r, 50));
    value = await read();
  }
  return value;
}

/** Polls GET /v1/messages/{id} until the message is no longer pending. */
export async function settledMessage(
  gw: TestGateway,
  account: TestAccount,
  messageId: string,
  timeoutMs = 10_000,
): Promise<any> {
  const res = await poll(
    () => api(gw, account, 'GET', `messages/${messageId}`),
    (r) => r.status !== 200 || r.body.status !== 'pending',
    timeoutMs,
  );
  expect(res.status).toBe(200);
  return res.body;
}

/** What a Receiver answers a request with. */
export interface Answer {
  status: number;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** The connection is dropped once the head and the body's first bytes are sent. */
  cut?: boolean;
  /** The head and the body are sent, and the answer never ends. */
  unfinished?: boolean;
}

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
}

/**
 * A webhook receiver on 127.0.0.1. `respond` decides each answer from the number of requests received so far
 * (1 for the first) and the request; by default every request gets 200. Returning undefined leaves the request
 * unanswered (a receiver that hangs).
 */
export class Receiver {
  readonly requests: Received[] = [];
  /** The requests left unanswered, oldest first, until `release` answers them. */
  private held: http.ServerResponse[] = [];
  private server!: http.Server;
  url = '';

  constructor(private respond: (n: number, req: Received) => Answer | undefined = () => ({ status: 200 })) {}

  static async start(respond?: ConstructorParameters<typeof Receiver>[0]): Promise<Receiver> {
    const r = new Receiver(respond);
    r.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: any;
        try {
          body = JSON.parse(raw);
        } catch {
          body = undefined;
        }
        const received: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, body };
        r.requests.push(received);
        const answer = r.respond(r.requests.length, received);
        if (!answer) return void r.held.push(res);
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        if (answer.cut) {
          res.flushHeaders();
          res.write('the first bytes', () => res.socket?.destroy());
          return;
        }
        if (answer.unfinished) return void res.write(answer.body ?? 'ok');
        res.end(answer.body ?? 'ok');
      });
    });
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/hook`;
    return r;
  }

  /** Waits until at least `n` requests arrived (bounded). */
  async waitFor(n: number, timeoutMs = 10_000): Promise<Received[]> {
    await poll(
      async () => this.requests.length,
      (len) => len >= n,
      timeoutMs,
    );
    return this.requests;
  }

  /** Answers the oldest request left unanswered (a receiver that hung comes back for one request). */
  release(status = 200): void {
    const res = this.held.shift();
    if (!res) throw new Error('No request is waiting for an answer');
    res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * A listener on 127.0.0.1 and on ::1 at the same port that counts every connection either gets: a URL written in any
 * of `forms()` that the gateway refuses must leave the count at 0.
 */
export class ConnectionTrap {
  connections = 0;
  private servers: http.Server[] = [];
  port = 0;

  static async start(
    answer: (res: http.ServerResponse) => void = (res) => void res.writeHead(200).end('{}'),
  ): Promise<ConnectionTrap> {
    const l = new ConnectionTrap();
    for (const host of ['127.0.0.1', '::1']) {
      const server = http.createServer((_req, res) => answer(res));
      server.on('connection', () => (l.connections += 1));
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(l.port, host, resolve));
      l.port = (server.address() as AddressInfo).port;
      l.servers.push(server);
    }
    return l;
  }

  /** The same loopback address written every way a hostile tenant might: names, IPv4 forms, IPv6 forms. */
  forms(path = '/hook'): string[] {
    const p = this.port;
    return [
      `http://127.0.0.1:${p}${path}`,
      `http://localhost:${p}${path}`,
      `http://LOCALHOST.:${p}${path}`,
      `http://app.localhost:${p}${path}`,
      `http://[::1]:${p}${path}`,
      `http://0x7f000001:${p}${path}`,
      `http://2130706433:${p}${path}`,
      `http://0177.0.0.1:${p}${path}`,
      `http://127.1:${p}${path}`,
      `http://0.0.0.0:${p}${path}`,
      `http://[::127.0.0.1]:${p}${path}`,
      `http://[::ffff:127.0.0.1]:${p}${path}`,
      `http://[::ffff:0:127.0.0.1]:${p}${path}`,
      `http://[64:ff9b::127.0.0.1]:${p}${path}`,
      `http://[2002:7f00:1::]:${p}${path}`,
      `http://10.0.0.1:${p}${path}`,
      `http://169.254.169.254${path}`,
      `http://[fe80::1]:${p}${path}`,
      `http://[fc00::1]:${p}${path}`,
      `http://100.64.0.1:${p}${path}`,
    ];
  }

  async close(): Promise<void> {
    for (const server of this.servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }
}

/**
 * Standard Webhooks verification as a receiver does it: HMAC-SHA256 over `${id}.${timestamp}.${body}` keyed
 * with the base64-decoded part of the `whsec_` secret, compared with any `v1,` signature in the header.
 */
export function verifyStandardWebhook(secret: string, received: Received): boolean {
  const id = received.headers['webhook-id'];
  const timestamp = received.headers['webhook-timestamp'];
  const header = received.headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof header !== 'string') return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${received.raw}`).digest('base64');
  return header.split(' ').some((s) => s === `v1,${expected}`);
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A valid WAV file: `seconds` of a 440 Hz tone, 8 kHz mono 8-bit PCM, as a voice note a browser can play. */
export function wav(seconds = 0.25): Buffer {
  const rate = 8000;
  const samples = Buffer.alloc(Math.round(rate * seconds));
  for (let i = 0; i < samples.length; i++) samples[i] = 128 + Math.round(60 * Math.sin((2 * Math.PI * 440 * i) / rate));
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + samples.length, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16); // the fmt chunk's size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate, 28); // bytes a second
  header.writeUInt16LE(1, 32); // bytes a frame
  header.writeUInt16LE(8, 34); // bits a sample
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(samples.length, 40);
  return Buffer.concat([header, samples]);
}

/** A valid RGB PNG of `width` x `height` pixels (noise, so it does not compress away). */
export function png(width = 2, height = 2): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type RGB
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) rows.push(Buffer.concat([Buffer.from([0]), randomBytes(width * 3)]));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

export const dataUri = (mime: string, bytes: Buffer) => `data:${mime};base64,${bytes.toString('base64')}`;

let seq = 0;
/** A value unique within this test process. */
export const unique = (prefix: string) => `${prefix}-${process.pid}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;

let phones = 0;
/** A possible US number (reserved 555 range), different on every call within this process. */
export const uniquePhone = () =>
  `+1555${String(process.pid % 1000).padStart(3, '0')}${String(++phones).padStart(4, '0')}`;

/** An incoming custom-channel message body with defaults for every required field. */
export function incoming(customData: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    customData: {
      messageSid: unique('sid'),
      fromId: unique('user'),
      toId: 'biz-1',
      body: 'Hello there',
      ...customData,
    },
    ...extra,
  };
}

/** Twilio's X-Twilio-Signature: base64 HMAC-SHA1 of the URL followed by each parameter's name and value, sorted. */
export function twilioSignature(token: string, url: string, params: Record<string, string>): string {
  const data =
    url +
    Object.keys(params)
      .sort()
      .map((k) => k + params[k])
      .join('');
  return createHmac('sha1', token).update(data).digest('base64');
}

/** Meta's X-Hub-Signature-256: the app secret's HMAC-SHA256 over the body's bytes as sent. */
export const metaSignature = (secret: string, body: string | Buffer) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
