import https from 'node:https';
import type net from 'node:net';
import express from 'express';
import type { Logger } from '../log.js';
import { jsonBody } from './middleware/json-body.js';
import { parse } from './route.js';
import { incomingMessage } from './schemas.js';

/** Connections the warm-up opens, as many as a busy integration keeps, and requests it sends over them. */
const CONNECTIONS = 16;
const REQUESTS = 200;

let warmed = false;

/**
 * Serves a few hundred posts over TLS before the gateway's port opens, on a loopback port of its own and an
 * application of its own: TLS handshakes and records, HTTP parsing, Express's routing, the JSON body's parsing
 * (whose character sets load on first use) and validation, the answer's serialisation. Their code is then compiled
 * and optimised when the first clients come, which otherwise wait for it. Nothing reaches the gateway's application,
 * store, logs or metrics: the posts are answered by the body's validation alone.
 */
export async function warmUpHttp(tls: { cert: string; key: string }, log: Logger): Promise<void> {
  // Once a process: its code stays compiled for a later gateway of the process (the tests' in-process ones).
  if (warmed) return;
  warmed = true;
  const started = performance.now();
  try {
    await serveWarmUp(tls);
    log.debug({ ms: Math.round(performance.now() - started) }, 'the HTTP server warmed up');
  } catch (err) {
    log.warn({ err }, 'the HTTP warm-up failed: the first requests may be slower');
  }
}

async function serveWarmUp(tls: { cert: string; key: string }): Promise<void> {
  const app = express();
  app.set('etag', false);
  app.post('/', jsonBody(), (req, res) => {
    const { customData } = parse(incomingMessage, req.body);
    res.json({ success: true, messageId: customData.messageSid });
  });
  const server = https.createServer({ cert: tls.cert, key: tls.key }, app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  // The client is this process and the server its own, on loopback, and nothing it sends is secret: the
  // certificate (possibly made for another name) is not checked.
  const agent = new https.Agent({ keepAlive: true, maxSockets: CONNECTIONS, rejectUnauthorized: false });
  try {
    const { port } = server.address() as net.AddressInfo;
    let next = 0;
    const lane = async () => {
      while (next < REQUESTS) await post(agent, port, next++);
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, lane));
  } finally {
    agent.destroy();
    server.closeAllConnections();
    server.close();
  }
}

function post(agent: https.Agent, port: number, i: number): Promise<void> {
  const payload = JSON.stringify({
    customData: {
      messageSid: `warm-up-${i}`,
      fromId: '+15555550100',
      toId: 'warm-up',
      body: 'Hello',
      channel: 'warm-up',
    },
  });
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) },
      },
      (res) => {
        res.resume().on('end', () => {
          if (res.statusCode === 200) resolve();
          else reject(new Error(`the warm-up's post was answered ${res.statusCode}`));
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
