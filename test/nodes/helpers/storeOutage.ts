/**
 * A stand-in in front of a test gateway, on loopback, that answers chosen requests as the gateway answers while its
 * store is away (a database restarting for an upgrade), and hands every other one to the gateway.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

import { trusting, type TestGateway } from '../../helpers/gateway';

export type StoreRefusalCode = 'STORE_UNAVAILABLE' | 'COMMIT_OUTCOME_UNKNOWN' | 'STORE_DAMAGED';

/** The gateway's words and wait for each refusal (gateway/src/http/errors.ts). */
const REFUSALS: Record<StoreRefusalCode, { message: string; retryAfter: string }> = {
  STORE_UNAVAILABLE: { message: 'The store is unavailable: the change was not saved; retry later', retryAfter: '1' },
  COMMIT_OUTCOME_UNKNOWN: {
    message:
      'The connection to the store broke while the change was being saved: it may have been saved. Repeating the request with the same messageSid or Idempotency-Key is safe',
    retryAfter: '1',
  },
  STORE_DAMAGED: {
    message:
      "A file of the store holding what this needs is damaged: the gateway's operator must restore it from a backup (GET /readyz names it)",
    retryAfter: '300',
  },
};

interface Outage {
  method: string;
  path: string;
  code: StoreRefusalCode;
  /** How many more of these requests are refused. */
  left: number;
}

export interface StoreOutage {
  /** The Base URL a credential gives to go through the stand-in, ending with /v1. */
  apiBase: string;
  /** Every request that came, as `METHOD /v1/path`, in order. */
  seen: string[];
  /**
   * Refuses the next `times` requests of `method` on `path` (under /v1, without its query) with `code`. A
   * COMMIT_OUTCOME_UNKNOWN is what a client meets at worst: the gateway saved the change, and its answer was lost.
   * A STORE_UNAVAILABLE or STORE_DAMAGED request never reaches the gateway: nothing of it is done.
   */
  refuse(method: string, path: string, code: StoreRefusalCode, times?: number): void;
  /** The store is back: no request is refused any more, and `seen` starts again. */
  heal(): void;
  close(): Promise<void>;
}

function forward(
  gw: TestGateway,
  req: http.IncomingMessage,
  body: Buffer,
): Promise<http.IncomingMessage & { body: Buffer }> {
  const headers = { ...req.headers };
  delete headers.host;
  return new Promise((resolve, reject) => {
    const out = https.request(
      new URL(req.url ?? '/', gw.url),
      { method: req.method, headers, ...trusting(gw.ca), agent: false, servername: 'localhost' },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(Object.assign(res, { body: Buffer.concat(chunks) })));
        res.on('error', reject);
      },
    );
    out.on('error', reject);
    out.end(body);
  });
}

export async function storeOutage(gw: TestGateway): Promise<StoreOutage> {
  const outages: Outage[] = [];
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const path = (req.url ?? '/').split('?')[0]!;
        seen.push(`${req.method} ${path}`);
        const outage = outages.find((o) => o.left > 0 && o.method === req.method && `/v1${o.path}` === path);
        const body = Buffer.concat(chunks);
        if (outage) {
          outage.left -= 1;
          if (outage.code === 'COMMIT_OUTCOME_UNKNOWN') await forward(gw, req, body);
          const refusal = REFUSALS[outage.code];
          res.writeHead(503, { 'content-type': 'application/json', 'retry-after': refusal.retryAfter });
          res.end(JSON.stringify({ error: { code: outage.code, message: refusal.message } }));
          return;
        }
        const answer = await forward(gw, req, body);
        const headers = { ...answer.headers };
        delete headers['transfer-encoding'];
        delete headers.connection;
        res.writeHead(answer.statusCode ?? 502, headers);
        res.end(answer.body);
      })().catch((err: unknown) => {
        res.writeHead(502);
        res.end(String(err));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    seen,
    refuse(method, path, code, times = 1) {
      outages.push({ method, path, code, left: times });
    },
    heal() {
      outages.splice(0);
      seen.splice(0);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
