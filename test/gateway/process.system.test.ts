import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { generate } from 'selfsigned';
import {
  createAccount,
  freePort,
  GATEWAY_MAIN,
  removeDir,
  request,
  startGateway,
  tempDir,
  type GatewayProcess,
} from '../helpers/gateway';
import { startupLine } from '../helpers/log-lines';

/** The gateway as an operator runs it: TLS, plain-HTTP refusal, shutdown, the data-dir lock, config, admin token. */

jest.setTimeout(60_000);

const running: GatewayProcess[] = [];
const dirs: string[] = [];

async function start(env: Record<string, string> = {}, dataDir?: string): Promise<GatewayProcess> {
  const gw = await startGateway(env, dataDir);
  running.push(gw);
  if (!dirs.includes(gw.dataDir)) dirs.push(gw.dataDir);
  return gw;
}

function dir(): string {
  const d = tempDir();
  dirs.push(d);
  return d;
}

afterAll(async () => {
  for (const gw of running) await gw.kill();
  for (const d of dirs) removeDir(d);
});

const portOf = (gw: GatewayProcess) => Number(new URL(gw.url).port);

/** Runs `leadchat-gateway serve` expecting it to stop by itself (a refusal), and returns its exit code and output. */
function runUntilExit(
  env: Record<string, string>,
  timeoutMs = 20_000,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [GATEWAY_MAIN, 'serve'], {
      env: { PATH: process.env.PATH ?? '', LEADCHAT_HOST: '127.0.0.1', LEADCHAT_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gateway kept running:\n${output}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

interface PlainReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** A plain-HTTP request to the gateway's port, as a misconfigured client (or a proxy) sends it. */
function plainRequest(
  port: number,
  method: string,
  pathname: string,
  opts: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<PlainReply> {
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: pathname,
        agent: false,
        headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...opts.headers },
      },
      (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (c) => (text += c))
          .on('end', () => {
            let body: any = text;
            try {
              body = JSON.parse(text);
            } catch {
              // left as text: the assertion shows it
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
          });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The certificate the gateway presents on its port, checked against `ca`. */
function servedCertificate(
  port: number,
  ca: string,
  servername = 'localhost',
): Promise<{ fingerprint256: string; authorized: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca, servername }, () => {
      const cert = socket.getPeerCertificate();
      resolve({ fingerprint256: cert.fingerprint256, authorized: socket.authorized });
      socket.end();
    });
    socket.on('error', reject);
  });
}

// DER encodings of the signature algorithm identifiers: ecdsa-with-SHA256 and sha256WithRSAEncryption.
const ECDSA_SHA256 = Buffer.from('06082a8648ce3d040302', 'hex');
const RSA_SHA256 = Buffer.from('06092a864886f70d01010b', 'hex');
const SHA1_SIGNATURES = [Buffer.from('06072a8648ce3d0401', 'hex'), Buffer.from('06092a864886f70d010105', 'hex')];

const mode = (file: string) => statSync(file).mode & 0o777;

describe('TLS', () => {
  test('a self-signed sha256 certificate for localhost is generated once into the data dir and reused on restart', async () => {
    const gw = await start();
    const certFile = path.join(gw.dataDir, 'tls', 'cert.pem');
    const keyFile = path.join(gw.dataDir, 'tls', 'key.pem');
    const pem = readFileSync(certFile, 'utf8');
    const cert = new X509Certificate(pem);

    expect(cert.raw.includes(ECDSA_SHA256) || cert.raw.includes(RSA_SHA256)).toBe(true);
    for (const sha1 of SHA1_SIGNATURES) expect(cert.raw.includes(sha1)).toBe(false);
    expect(cert.subject).toContain('CN=localhost');
    expect(cert.subjectAltName).toContain('DNS:localhost');
    expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(new Date(cert.validTo).getTime()).toBeGreaterThan(Date.now() + 365 * 24 * 3_600_000);
    expect(mode(keyFile)).toBe(0o600);
    expect(startupLine(gw.output()).certificate).toBe(`${certFile} (self-signed, generated now)`);

    const served = await servedCertificate(portOf(gw), pem);
    expect(served).toEqual({ fingerprint256: cert.fingerprint256, authorized: true });
    expect((await request(gw, 'GET', '/v1/openapi.json')).status).toBe(200);

    expect(await gw.stop()).toBe(0);
    const again = await start({}, gw.dataDir);
    expect(readFileSync(certFile, 'utf8')).toBe(pem);
    expect(startupLine(again.output()).certificate).toBe(`${certFile} (self-signed)`);
    expect(await servedCertificate(portOf(again), pem)).toEqual({
      fingerprint256: cert.fingerprint256,
      authorized: true,
    });
    expect(await again.stop()).toBe(0);
  });

  test('LEADCHAT_TLS_CERT and LEADCHAT_TLS_KEY are served when given, and nothing is generated', async () => {
    const certDir = dir();
    const pems = await generate([{ name: 'commonName', value: 'gateway.operator.test' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      extensions: [
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'gateway.operator.test' },
            { type: 7, ip: '127.0.0.1' },
          ],
        },
      ],
    });
    const certFile = path.join(certDir, 'operator-cert.pem');
    const keyFile = path.join(certDir, 'operator-key.pem');
    writeFileSync(certFile, pems.cert);
    writeFileSync(keyFile, pems.private, { mode: 0o600 });

    const gw = await start({ LEADCHAT_TLS_CERT: certFile, LEADCHAT_TLS_KEY: keyFile });
    const served = await servedCertificate(portOf(gw), pems.cert, 'gateway.operator.test');
    expect(served).toEqual({ fingerprint256: new X509Certificate(pems.cert).fingerprint256, authorized: true });
    expect(existsSync(path.join(gw.dataDir, 'tls'))).toBe(false);
    expect(startupLine(gw.output()).certificate).toBe(certFile);
    const account = await createAccount(gw);
    expect((await request(gw, 'GET', '/v1/credits', { apiKey: account.apiKey })).status).toBe(200);
    expect(await gw.stop()).toBe(0);
  });
});

describe('plain HTTP', () => {
  let gw: GatewayProcess;
  let apiKey: string;
  beforeAll(async () => {
    gw = await start();
    apiKey = (await createAccount(gw)).apiKey;
  });

  test('a plain-HTTP request to the HTTPS port gets a JSON HTTPS_REQUIRED error', async () => {
    for (const pathname of [
      '/v1/credits',
      '/v1/contacts?phoneNumber=%2B14155550100',
      '/admin/v1/accounts',
      '/no/such/route',
    ]) {
      const res = await plainRequest(portOf(gw), 'GET', pathname, { headers: { 'x-api-key': apiKey } });
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ error: { code: 'HTTPS_REQUIRED', message: expect.stringMatching(/HTTPS/) } });
    }
    // A forwarded-proto header is not trusted without LEADCHAT_TRUST_PROXY.
    const spoofed = await plainRequest(portOf(gw), 'GET', '/v1/credits', {
      headers: { 'x-api-key': apiKey, 'x-forwarded-proto': 'https' },
    });
    expect(spoofed.body.error.code).toBe('HTTPS_REQUIRED');
  });

  test('a plain-HTTP request is never processed: a plain POST creates nothing', async () => {
    const phone = '+14155550123';
    const res = await plainRequest(portOf(gw), 'POST', '/v1/contacts', {
      headers: { 'x-api-key': apiKey },
      body: { phone, firstName: 'Plain' },
    });
    expect(res.body).toEqual({ error: { code: 'HTTPS_REQUIRED', message: expect.any(String) } });

    const incoming = await plainRequest(portOf(gw), 'POST', '/v1/incoming_custom_channel_message', {
      headers: { 'x-api-key': apiKey },
      body: { customData: { messageSid: 'plain-1', fromId: '+14155550124', toId: 'biz', body: 'hello' } },
    });
    // The incoming-message endpoint renders its errors as a plain string (spec §7).
    expect(incoming.status).toBe(400);
    expect(incoming.body).toEqual({ error: expect.stringMatching(/HTTPS/) });

    expect((await request(gw, 'GET', '/v1/contacts', { apiKey, query: { phoneNumber: phone } })).status).toBe(404);
    // The same message over HTTPS is new: the plain attempt stored nothing under its messageSid.
    const secure = await request(gw, 'POST', '/v1/incoming_custom_channel_message', {
      apiKey,
      body: { customData: { messageSid: 'plain-1', fromId: '+14155550124', toId: 'biz', body: 'hello' } },
    });
    expect(secure.status).toBe(200);
    const stored = await request(gw, 'GET', `/v1/messages/${secure.body.messageId}`, { apiKey });
    const thread = await request(gw, 'GET', `/v1/contacts/${stored.body.contactId}/messages`, { apiKey });
    const written = thread.body.data.filter((m: { direction: string }) => m.direction === 'incoming');
    expect(written.map((m: { messageSid: string }) => m.messageSid)).toEqual(['plain-1']);
  });
});

describe('behind a TLS-terminating proxy (LEADCHAT_TRUST_PROXY=1)', () => {
  let gw: GatewayProcess;
  let apiKey: string;
  beforeAll(async () => {
    gw = await start({ LEADCHAT_TRUST_PROXY: '1' });
    apiKey = (await createAccount(gw)).apiKey;
  });

  test('X-Forwarded-Proto: https passes; http or none is refused with HTTPS_REQUIRED and creates nothing', async () => {
    const port = portOf(gw);
    const refusedHttp = await plainRequest(port, 'POST', '/v1/contacts', {
      headers: { 'x-api-key': apiKey, 'x-forwarded-proto': 'http' },
      body: { phone: '+14155550130' },
    });
    expect(refusedHttp.status).toBe(400);
    expect(refusedHttp.body).toEqual({ error: { code: 'HTTPS_REQUIRED', message: expect.any(String) } });
    const refusedNone = await plainRequest(port, 'POST', '/v1/contacts', {
      headers: { 'x-api-key': apiKey },
      body: { phone: '+14155550130' },
    });
    expect(refusedNone.body).toEqual({ error: { code: 'HTTPS_REQUIRED', message: expect.any(String) } });
    const refusedIncoming = await plainRequest(port, 'POST', '/v1/incoming_custom_channel_message', {
      headers: { 'x-api-key': apiKey, 'x-forwarded-proto': 'http' },
      body: { customData: { messageSid: 'proxy-1', fromId: 'proxy-user', toId: 'biz', body: 'hi' } },
    });
    expect(refusedIncoming.body).toEqual({ error: expect.stringMatching(/HTTPS/) });
    expect((await request(gw, 'GET', '/v1/contacts', { apiKey, query: { phoneNumber: '+14155550130' } })).status).toBe(
      404,
    );

    const passed = await plainRequest(port, 'POST', '/v1/contacts', {
      headers: { 'x-api-key': apiKey, 'x-forwarded-proto': 'https' },
      body: { phone: '+14155550130' },
    });
    expect(passed.status).toBe(201);
    expect(passed.body.phone).toBe('+14155550130');
    const found = await plainRequest(port, 'GET', '/v1/contacts?phoneNumber=%2B14155550130', {
      headers: { 'x-api-key': apiKey, 'x-forwarded-proto': 'https' },
    });
    expect(found.status).toBe(200);
    expect(found.body.id).toBe(passed.body.id);

    // A direct TLS connection is HTTPS; one claiming to be forwarded from plain HTTP is not.
    expect((await request(gw, 'GET', '/v1/credits', { apiKey })).status).toBe(200);
    const forwardedPlain = await request(gw, 'GET', '/v1/credits', {
      apiKey,
      headers: { 'x-forwarded-proto': 'http' },
    });
    expect(forwardedPlain.body).toEqual({ error: { code: 'HTTPS_REQUIRED', message: expect.any(String) } });
  });
});

/** Sends a POST whose body trickles in over `ms`, so that it is in flight for that long. */
function slowPost(gw: GatewayProcess, pathname: string, apiKey: string, payload: string, ms: number) {
  const bytes = Buffer.from(payload);
  const req = https.request(new URL(pathname, gw.url), {
    method: 'POST',
    ca: gw.ca,
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': String(bytes.length), 'x-api-key': apiKey },
  });
  const reply = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res
        .setEncoding('utf8')
        .on('data', (c) => (text += c))
        .on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
  });
  const pieces = 10;
  const size = Math.ceil(bytes.length / pieces);
  req.write(bytes.subarray(0, size));
  let sent = size;
  const timer = setInterval(() => {
    req.write(bytes.subarray(sent, sent + size));
    sent += size;
    if (sent >= bytes.length) {
      clearInterval(timer);
      req.end();
    }
  }, ms / pieces);
  return reply;
}

function connectRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

describe('SIGTERM', () => {
  test('stops accepting, finishes requests in flight, exits 0, and a restart has every acknowledged change', async () => {
    const gw = await start();
    const account = await createAccount(gw);
    const apiKey = account.apiKey;

    const big = 'x'.repeat(9_500);
    const slow = slowPost(
      gw,
      '/v1/incoming_custom_channel_message',
      apiKey,
      JSON.stringify({ customData: { messageSid: 'slow-1', fromId: 'slow-sender', toId: 'biz', body: big } }),
      2_000,
    );
    // Clients creating contacts one after another on new connections, racing the signal until they are refused:
    // each request is answered in full or refused at the connection, never left half-done.
    let n = 0;
    const results: Array<{ phone: string; status: number; id?: string; error?: string }> = [];
    const client = async () => {
      for (;;) {
        const phone = `+1415555${String(2000 + n++).padStart(4, '0')}`;
        try {
          const res = await request(gw, 'POST', '/v1/contacts', { apiKey, body: { phone, firstName: 'Drain' } });
          results.push({ phone, status: res.status, id: res.body?.id });
        } catch (err) {
          results.push({ phone, status: 0, error: (err as NodeJS.ErrnoException).code ?? (err as Error).message });
          return;
        }
      }
    };
    const creates = Promise.all(Array.from({ length: 4 }, client));
    await new Promise((r) => setTimeout(r, 300));
    const exited = gw.stop();
    await new Promise((r) => setTimeout(r, 300));
    expect(gw.process.exitCode).toBeNull(); // still draining the slow request
    expect(await connectRefused(portOf(gw))).toBe(true);

    const slowReply = await slow;
    expect(slowReply).toEqual({ status: 200, body: { success: true, messageId: expect.stringMatching(/^msg_/) } });
    await creates;
    expect(results.filter((r) => r.status === 201).length).toBeGreaterThan(4);
    for (const r of results) {
      if (r.status === 0)
        expect(r).toEqual(
          expect.objectContaining({ error: expect.stringMatching(/ECONNRESET|ECONNREFUSED|socket hang up|EPIPE/) }),
        );
      else expect(r.status).toBe(201);
    }
    expect(await exited).toBe(0);
    expect(existsSync(path.join(gw.dataDir, 'gateway.lock'))).toBe(false);

    const again = await start({}, gw.dataDir);
    const message = await request(again, 'GET', `/v1/messages/${slowReply.body.messageId}`, { apiKey });
    expect(message.status).toBe(200);
    expect(message.body).toEqual(
      expect.objectContaining({ id: slowReply.body.messageId, body: big, messageSid: 'slow-1', direction: 'incoming' }),
    );
    for (const r of results.filter((x) => x.status === 201)) {
      const found = await request(again, 'GET', '/v1/contacts', { apiKey, query: { phoneNumber: r.phone } });
      expect({ phone: r.phone, status: found.status, id: found.body.id }).toEqual({
        phone: r.phone,
        status: 200,
        id: r.id,
      });
    }
    expect(await again.stop()).toBe(0);
  });
});

describe('data-dir lock', () => {
  test('a second gateway on the same data dir refuses with a clear message while the first keeps serving', async () => {
    const first = await start();
    const apiKey = (await createAccount(first)).apiKey;
    const second = await runUntilExit({
      LEADCHAT_DATA_DIR: first.dataDir,
      LEADCHAT_PORT: String(await freePort()),
      LEADCHAT_ADMIN_TOKEN: first.adminToken,
    });
    expect(second.code).not.toBe(0);
    expect(second.code).not.toBeNull();
    expect(second.output).toContain(
      `Another gateway (pid ${first.process.pid}) is using the data dir ${first.dataDir}`,
    );
    expect(second.output).not.toContain('listening on');

    const created = await request(first, 'POST', '/v1/contacts', { apiKey, body: { phone: '+14155550140' } });
    expect(created.status).toBe(201);
    expect(readFileSync(path.join(first.dataDir, 'gateway.lock'), 'utf8').split('\n')[0]).toBe(
      String(first.process.pid),
    );
    expect(await first.stop()).toBe(0);

    // Released on exit: the next start takes the data dir and finds the data.
    const next = await start({}, first.dataDir);
    const found = await request(next, 'GET', '/v1/contacts', { apiKey, query: { phoneNumber: '+14155550140' } });
    expect(found.body.id).toBe(created.body.id);
    expect(await next.stop()).toBe(0);
  });
});

describe('data-dir lock on a shared volume', () => {
  test("another host's lock is respected while it is kept fresh, and taken over once its owner has gone silent", async () => {
    const dataDir = dir();
    const lockFile = path.join(dataDir, 'gateway.lock');
    // A gateway in another container: its pid means nothing here, only its heartbeat (the file's mtime) does.
    writeFileSync(lockFile, '1\nother-container\n');
    const refused = await runUntilExit({ LEADCHAT_DATA_DIR: dataDir, LEADCHAT_PORT: String(await freePort()) });
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`Another gateway (pid 1 on other-container) is using the data dir ${dataDir}`);

    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(lockFile, longAgo, longAgo);
    const next = await start({}, dataDir);
    expect(readFileSync(lockFile, 'utf8').split('\n')[0]).toBe(String(next.process.pid));
    expect(await next.stop()).toBe(0);
    expect(existsSync(lockFile)).toBe(false);
  });
});

describe('configuration', () => {
  test.each([
    ['LEADCHAT_PORT', 'abc'],
    ['LEADCHAT_PORT', '70000'],
    ['LEADCHAT_WEBHOOK_RETRIES', 'xyz'],
    ['LEADCHAT_WEBHOOK_TIMEOUT', '15'],
    ['LEADCHAT_TRUST_PROXY', 'yes'],
    ['LEADCHAT_ADMIN_TOKEN', 'short'],
    ['LEADCHAT_RATE_LIMIT_PER_MINUTE', '0'],
    ['LEADCHAT_MAX_MEDIA_BYTES', '-5'],
    ['LEADCHAT_LOG_LEVEL', 'loud'],
    ['LEADCHAT_URL', 'not a url'],
  ])('%s=%s stops start-up with a message naming it', async (name, value) => {
    const dataDir = path.join(dir(), 'never-created');
    const { code, output } = await runUntilExit({
      LEADCHAT_DATA_DIR: dataDir,
      LEADCHAT_PORT: String(await freePort()),
      [name]: value,
    });
    expect(code).toBe(1);
    expect(output).toContain('invalid configuration');
    expect(output).toContain(`${name}=`);
    expect(output).not.toContain('listening on');
    expect(output).not.toMatch(/\n\s+at /); // a message, not a stack trace
    expect(existsSync(dataDir)).toBe(false);
  });

  test('a certificate without its key, or an unreadable certificate, stops start-up naming the variables', async () => {
    const base = dir();
    const half = await runUntilExit({
      LEADCHAT_DATA_DIR: path.join(base, 'a'),
      LEADCHAT_PORT: String(await freePort()),
      LEADCHAT_TLS_CERT: path.join(base, 'cert.pem'),
    });
    expect(half.code).toBe(1);
    expect(half.output).toContain('LEADCHAT_TLS_CERT and LEADCHAT_TLS_KEY must be set together');

    const missing = await runUntilExit({
      LEADCHAT_DATA_DIR: path.join(base, 'b'),
      LEADCHAT_PORT: String(await freePort()),
      LEADCHAT_TLS_CERT: path.join(base, 'missing-cert.pem'),
      LEADCHAT_TLS_KEY: path.join(base, 'missing-key.pem'),
    });
    expect(missing.code).toBe(1);
    // Both are named, whichever of the two reads failed first.
    expect(missing.output).toContain(`Cannot read LEADCHAT_TLS_CERT ${path.join(base, 'missing-cert.pem')}: ENOENT`);
    expect(missing.output).toContain(`; nor LEADCHAT_TLS_KEY ${path.join(base, 'missing-key.pem')}: ENOENT`);
    expect(missing.output).not.toContain('listening on');
    // The failed start released the data dir.
    expect(existsSync(path.join(base, 'b', 'gateway.lock'))).toBe(false);
  });
});

describe('admin token', () => {
  test('generated once into <dataDir>/admin-token (0600) when LEADCHAT_ADMIN_TOKEN is unset; its place is printed, never its value', async () => {
    const gw = await start({ LEADCHAT_ADMIN_TOKEN: '', LEADCHAT_LOG_LEVEL: 'debug' });
    const file = path.join(gw.dataDir, 'admin-token');
    const token = readFileSync(file, 'utf8').trim();
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(mode(file)).toBe(0o600);
    // The web console's address is told beside the API's.
    expect(startupLine(gw.output())).toEqual(
      expect.objectContaining({
        adminTokenFrom: file,
        api: `${gw.url}/v1`,
        console: `${gw.url}/console`,
      }),
    );

    const ok = await request(gw, 'POST', '/admin/v1/accounts', {
      headers: { authorization: `Bearer ${token}` },
      body: { name: 'Ops', email: 'ops@example.com' },
    });
    expect(ok.status).toBe(201);
    const wrong = await request(gw, 'POST', '/admin/v1/accounts', {
      headers: { authorization: 'Bearer not-the-admin-token-at-all' },
      body: { name: 'X', email: 'x@example.com' },
    });
    expect(wrong.status).toBe(401);
    expect(gw.output()).not.toContain(token);
    expect(await gw.stop()).toBe(0);
    expect(gw.output()).not.toContain(token);

    const again = await start({ LEADCHAT_ADMIN_TOKEN: '', LEADCHAT_LOG_LEVEL: 'debug' }, gw.dataDir);
    expect(readFileSync(file, 'utf8').trim()).toBe(token);
    const list = await request(again, 'GET', '/admin/v1/accounts', { headers: { authorization: `Bearer ${token}` } });
    expect(list.status).toBe(200);
    expect(list.body.data.map((a: { email: string }) => a.email)).toEqual(['ops@example.com']);
    expect(again.output()).not.toContain(token);
    expect(await again.stop()).toBe(0);
  });

  test('with LEADCHAT_ADMIN_TOKEN set, no file is written and the token is not printed', async () => {
    const token = 'operator-chosen-admin-token-42';
    const gw = await start({ LEADCHAT_ADMIN_TOKEN: token, LEADCHAT_LOG_LEVEL: 'debug' });
    expect(existsSync(path.join(gw.dataDir, 'admin-token'))).toBe(false);
    expect(startupLine(gw.output()).adminTokenFrom).toBe('LEADCHAT_ADMIN_TOKEN');
    expect((await createAccount(gw)).apiKey).toEqual(expect.any(String));
    expect(await gw.stop()).toBe(0);
    expect(gw.output()).not.toContain(token);
  });
});
