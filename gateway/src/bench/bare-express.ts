/**
 * The benchmarks' baseline: the least an Express 5 JSON endpoint costs here, over the gateway's own TLS certificate.
 * Run as a child process (`node bare-express.js <port> <cert> <key>`); it prints "bare server listening".
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { startChild } from './gateway-process.js';
import { INCOMING } from './http-load.js';

export const BARE_EXPRESS = fileURLToPath(import.meta.url);

function serve(port: number, certFile: string, keyFile: string): void {
  const app = express();
  let n = 0;
  app.post(
    INCOMING,
    express.json({ limit: '100kb' }),
    (_req, res) => void res.json({ success: true, messageId: `msg_${++n}` }),
  );
  const server = https.createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, app);
  server.listen(port, '127.0.0.1', () => process.stdout.write('bare server listening\n'));
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

/** The bare endpoint as a child process on `port`, with the certificate of a gateway's data dir. */
export async function startBareExpress(port: number, dataDir: string) {
  const tls = path.join(dataDir, 'tls');
  return (
    await startChild(
      [BARE_EXPRESS, String(port), path.join(tls, 'cert.pem'), path.join(tls, 'key.pem')],
      process.env,
      'bare server listening',
    )
  ).child;
}

if (process.argv[1] === BARE_EXPRESS) serve(Number(process.argv[2]), process.argv[3]!, process.argv[4]!);
