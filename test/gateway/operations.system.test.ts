import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { generate } from 'selfsigned';
import parsePrometheus from 'parse-prometheus-text-format';
import { createAccount, removeDir, request, runCli, startGateway, tempDir, type TestGateway } from '../helpers/gateway';
import { logLines, startupLine } from '../helpers/log-lines';

/**
 * What an operator meets around the gateway: which build runs, a backup of a stopped gateway (the README's upgrade
 * steps: stop, back up, install, start), and the CLI against the operator's own certificate.
 */
jest.setTimeout(60_000);

const VERSION = (
  JSON.parse(readFileSync(path.resolve(__dirname, '../../gateway/package.json'), 'utf8')) as { version: string }
).version;
/** The commit this checkout is at, as the build recorded it; null outside a git checkout. */
const COMMIT = (() => {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: path.resolve(__dirname, '../..'),
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
  } catch {
    return null;
  }
})();
const built = (
  JSON.parse(readFileSync(path.resolve(__dirname, '../../gateway/dist/build-info.json'), 'utf8')) as {
    commit: string | null;
  }
).commit;

const work = tempDir('leadchat-operations-');
afterAll(() => removeDir(work));

test('--version names the version and the commit the build was made from', async () => {
  expect(built).toBe(COMMIT);
  const res = await runCli(['--version'], {});
  expect(res.code).toBe(0);
  expect(res.stdout).toBe(`leadchat-gateway ${VERSION}${COMMIT ? ` (commit ${COMMIT})` : ''}\n`);
});

test('the start-up line (JSON, as every line of the output) and /metrics name the build and its store', async () => {
  const gw = await startGateway();
  try {
    expect(startupLine(gw.output())).toEqual({
      level: 30,
      time: expect.any(Number),
      msg: `LeadChat gateway listening on ${gw.url}`,
      version: VERSION,
      commit: COMMIT,
      store: 'lowdb',
      url: gw.url,
      api: `${gw.url}/v1`,
      console: `${gw.url}/console`,
      dataDir: gw.dataDir,
      certificate: `${path.join(gw.dataDir, 'tls', 'cert.pem')} (self-signed, generated now)`,
      adminTokenFrom: 'LEADCHAT_ADMIN_TOKEN',
    });
    // Started at LEADCHAT_LOG_LEVEL=warn: the start-up line is its only line.
    expect(logLines(gw.output())).toHaveLength(1);
    const res = await request(gw, 'GET', '/metrics', { headers: { authorization: `Bearer ${gw.adminToken}` } });
    const info = parsePrometheus(res.text).find((f: { name: string }) => f.name === 'leadchat_build_info');
    expect(info?.metrics).toEqual([
      { labels: { version: VERSION, commit: COMMIT ?? 'unknown', store: 'lowdb' }, value: '1' },
    ]);
  } finally {
    await gw.stop();
    removeDir(gw.dataDir);
  }
});

test('a stopped gateway is backed up offline under its lock, and the backup restores', async () => {
  const gw = await startGateway();
  const account = await createAccount(gw, { email: `offline-${process.pid}@example.com` });
  await gw.stop();
  const file = path.join(work, 'offline.tar.gz');
  const env = { LEADCHAT_DATA_DIR: gw.dataDir, LEADCHAT_URL: 'https://127.0.0.1:1' };
  const res = await runCli(['backup', '--to', file], env);
  expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
  expect(res.json).toMatchObject({
    backup: file,
    manifest: { kind: 'leadchat-gateway backup', gatewayVersion: VERSION, storeFormat: expect.any(Number) },
  });

  const restored = path.join(work, 'restored');
  expect((await runCli(['restore', '--from', file], { LEADCHAT_DATA_DIR: restored })).code).toBe(0);
  const copy = await startGateway({}, restored);
  try {
    const found = await request(copy, 'GET', `/admin/v1/accounts?email=${encodeURIComponent(account.email)}`, {
      headers: { authorization: `Bearer ${copy.adminToken}` },
    });
    expect(found.body.data).toEqual([expect.objectContaining({ id: account.id, email: account.email })]);
  } finally {
    await copy.stop();
  }

  removeDir(gw.dataDir);
});

test("the CLI trusts the operator's own certificate, whatever name it carries, for account and backup", async () => {
  const pems = await generate([{ name: 'commonName', value: 'chat.example.com' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'chat.example.com' }] }],
  });
  const tls = path.join(work, 'own-tls');
  mkdirSync(tls);
  writeFileSync(path.join(tls, 'cert.pem'), pems.cert);
  writeFileSync(path.join(tls, 'key.pem'), pems.private, { mode: 0o600 });
  const certEnv = { LEADCHAT_TLS_CERT: path.join(tls, 'cert.pem'), LEADCHAT_TLS_KEY: path.join(tls, 'key.pem') };
  let gw: TestGateway | undefined;
  try {
    gw = await startGateway(certEnv);
    const env = {
      ...certEnv,
      LEADCHAT_DATA_DIR: gw.dataDir,
      LEADCHAT_PORT: gw.env.LEADCHAT_PORT!,
      LEADCHAT_ADMIN_TOKEN: gw.adminToken,
    };
    const created = await runCli(
      ['account', 'create', '--name', 'Own cert', '--email', `own-cert-${process.pid}@example.com`],
      env,
    );
    expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: '' });
    const backup = await runCli(['backup', '--to', path.join(work, 'own-cert.tar.gz')], env);
    expect({ code: backup.code, stderr: backup.stderr }).toEqual({ code: 0, stderr: '' });
    // Another certificate at the same address is not trusted for it.
    const other = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
    });
    writeFileSync(path.join(work, 'other.pem'), other.cert);
    const stranger = await runCli(['account', 'rotate-key', '--email', 'x@example.com'], {
      ...env,
      LEADCHAT_TLS_CERT: path.join(work, 'other.pem'),
    });
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toMatch(/Cannot reach the gateway at https:\/\/localhost:\d+: .*(self-signed|certificate)/);
  } finally {
    await gw?.stop();
    if (gw) removeDir(gw.dataDir);
  }
});

test('a certificate or key the gateway cannot serve refuses the start, naming its setting', async () => {
  const [pair, other] = await Promise.all(
    ['localhost', 'other.example'].map((value) =>
      generate([{ name: 'commonName', value }], { keyType: 'ec', curve: 'P-256', algorithm: 'sha256' }),
    ),
  );
  const dir = path.join(work, 'refused-tls');
  mkdirSync(dir);
  const file = (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text, { mode: 0o600 });
    return path.join(dir, name);
  };
  const cert = file('cert.pem', pair!.cert);
  const key = file('key.pem', pair!.private);
  const otherKey = file('other-key.pem', other!.private);
  const notPem = file('not.pem', 'not a PEM file\n');
  const refusal = async (tlsCert: string, tlsKey: string) => {
    const served = await runCli(['serve'], {
      LEADCHAT_HOST: '127.0.0.1',
      LEADCHAT_PORT: '0',
      LEADCHAT_DATA_DIR: path.join(dir, 'data'),
      LEADCHAT_TLS_CERT: tlsCert,
      LEADCHAT_TLS_KEY: tlsKey,
    });
    expect(served.code).toBe(1);
    return logLines(served.stdout).map((line) => [line.level, line.msg, line.reason]);
  };
  const refused = (reason: string) => [[60, 'the gateway could not start', reason]];
  expect(await refusal(notPem, key)).toEqual(refused(`LEADCHAT_TLS_CERT ${notPem} holds no certificate in PEM`));
  expect(await refusal(cert, notPem)).toEqual(
    refused(`LEADCHAT_TLS_KEY ${notPem} holds no private key in PEM that opens without a passphrase`),
  );
  expect(await refusal(cert, otherKey)).toEqual(
    refused(`LEADCHAT_TLS_KEY ${otherKey} is not the key of the certificate in LEADCHAT_TLS_CERT ${cert}`),
  );
});

test('a gateway listening on one address is called there: the start-up line names it, the CLI reaches it', async () => {
  // An address of this machine other than the one localhost names, as a server's own interface is.
  const gw = await startGateway({ LEADCHAT_HOST: '127.0.0.2' });
  try {
    const env = { LEADCHAT_HOST: '127.0.0.2', LEADCHAT_PORT: gw.env.LEADCHAT_PORT!, LEADCHAT_DATA_DIR: gw.dataDir };
    const created = await runCli(
      ['account', 'create', '--name', 'One address', '--email', `one-address-${process.pid}@example.com`],
      { ...env, LEADCHAT_ADMIN_TOKEN: gw.adminToken },
    );
    expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: '' });
  } finally {
    await gw.stop();
    removeDir(gw.dataDir);
  }
  // An IPv6 address is written in brackets, as a URL has it.
  const v6 = await startGateway({ LEADCHAT_HOST: '::1' });
  try {
    const url = `https://[::1]:${v6.env.LEADCHAT_PORT}`;
    expect(startupLine(v6.output())).toMatchObject({ url, console: `${url}/console` });
  } finally {
    await v6.stop();
    removeDir(v6.dataDir);
  }
});

test('a misspelt setting is named at start and by the CLI, with the setting meant, its value never shown', async () => {
  const secret = 'misspelt-admin-token-0123456789';
  const gw = await startGateway({ LEADCHAT_DATADIR: '/var/lib/leadchat/data', LEADCHAT_ADMN_TOKEN: secret });
  try {
    const lines = logLines(gw.output());
    expect(
      lines.filter((line) => line.level === 40).map(({ variable, meant, msg }) => ({ variable, meant, msg })),
    ).toEqual([
      {
        variable: 'LEADCHAT_ADMN_TOKEN',
        meant: 'LEADCHAT_ADMIN_TOKEN',
        msg: 'LEADCHAT_ADMN_TOKEN is no setting of the gateway and is ignored: did you mean LEADCHAT_ADMIN_TOKEN?',
      },
      {
        variable: 'LEADCHAT_DATADIR',
        meant: 'LEADCHAT_DATA_DIR',
        msg: 'LEADCHAT_DATADIR is no setting of the gateway and is ignored: did you mean LEADCHAT_DATA_DIR?',
      },
    ]);
    expect(gw.output()).not.toContain(secret);
    const backup = await runCli(['backup', '--to', path.join(work, 'misspelt.tar.gz')], {
      LEADCHAT_DATA_DIR: gw.dataDir,
      LEADCHAT_PORT: gw.env.LEADCHAT_PORT!,
      LEADCHAT_ADMIN_TOKEN: gw.adminToken,
      LEADCHAT_WEBHOOK_TIMEOUTS: '30s',
    });
    expect({ code: backup.code, stderr: backup.stderr }).toEqual({
      code: 0,
      stderr:
        'leadchat-gateway: LEADCHAT_WEBHOOK_TIMEOUTS is no setting of the gateway and is ignored: did you mean LEADCHAT_WEBHOOK_TIMEOUT?\n',
    });
  } finally {
    await gw.stop();
    removeDir(gw.dataDir);
  }
});

/** The SHA-256 fingerprint of the certificate the gateway serves now, as a client's handshake finds it. */
function servedFingerprint(gw: TestGateway): Promise<string> {
  const { port } = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: Number(port), rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.once('error', reject);
  });
}

/** Resolves once the gateway's output holds a line whose msg is `msg` (the `count`th such line). */
async function untilLogged(gw: TestGateway, msg: string, count = 1): Promise<void> {
  const seen = () => logLines(gw.output()).filter((line) => line.msg === msg).length >= count;
  while (!seen()) await new Promise((resolve) => setTimeout(resolve, 20));
}

test('a certificate renewed on disk is served without a restart; an expired one is said, a wrong pair refused', async () => {
  const day = 24 * 3_600_000;
  const make = (notAfterDate: Date) =>
    generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notBeforeDate: new Date(notAfterDate.getTime() - 90 * day),
      notAfterDate,
    });
  const [expired, renewed, stranger] = await Promise.all([
    make(new Date(Date.now() - day)),
    make(new Date(Date.now() + 90 * day)),
    make(new Date(Date.now() + 90 * day)),
  ]);
  const dir = path.join(work, 'renewed-tls');
  mkdirSync(dir);
  const certFile = path.join(dir, 'fullchain.pem');
  const keyFile = path.join(dir, 'privkey.pem');
  writeFileSync(certFile, expired!.cert);
  writeFileSync(keyFile, expired!.private, { mode: 0o600 });
  const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;
  const expiryMetric = async (ca: string) => {
    const res = await request({ url: gw.url, ca }, 'GET', '/metrics', {
      headers: { authorization: `Bearer ${gw.adminToken}` },
    });
    return parsePrometheus(res.text).find(
      (f: { name: string }) => f.name === 'leadchat_tls_certificate_expiry_timestamp_seconds',
    )?.metrics[0]?.value;
  };
  const gw = await startGateway({ LEADCHAT_TLS_CERT: certFile, LEADCHAT_TLS_KEY: keyFile, LEADCHAT_LOG_LEVEL: 'info' });
  try {
    const expiredAt = new Date(new X509Certificate(expired!.cert).validTo).toISOString();
    expect(logLines(gw.output()).find((line) => line.level === 40)).toMatchObject({
      certificate: certFile,
      validTo: expiredAt,
      msg: 'the certificate served has expired: clients refuse it; renew it (the gateway serves the renewed files within a minute, or at SIGHUP)',
    });
    expect(await servedFingerprint(gw)).toBe(fingerprint(expired!.cert));

    // As certbot renews: new files, then a reload (its deploy hook, or `systemctl reload`).
    writeFileSync(certFile, renewed!.cert);
    writeFileSync(keyFile, renewed!.private);
    gw.process.kill('SIGHUP');
    await untilLogged(gw, 'the certificate changed on disk: it is served now');
    expect(await servedFingerprint(gw)).toBe(fingerprint(renewed!.cert));
    expect(Number(await expiryMetric(renewed!.cert))).toBe(
      Date.parse(new X509Certificate(renewed!.cert).validTo) / 1000,
    );

    // A key of another certificate: said once, and the renewed pair is still served.
    writeFileSync(keyFile, stranger!.private);
    gw.process.kill('SIGHUP');
    gw.process.kill('SIGHUP');
    const refusal = 'the certificate on disk cannot be served: the one served before still is';
    await untilLogged(gw, refusal);
    expect(await servedFingerprint(gw)).toBe(fingerprint(renewed!.cert));
    // Its certificate written in turn: served, and the refusal was said once.
    writeFileSync(certFile, stranger!.cert);
    gw.process.kill('SIGHUP');
    await untilLogged(gw, 'the certificate changed on disk: it is served now', 2);
    expect(await servedFingerprint(gw)).toBe(fingerprint(stranger!.cert));
    expect(logLines(gw.output()).filter((line) => line.msg === refusal)).toEqual([
      expect.objectContaining({
        level: 40,
        reason: `LEADCHAT_TLS_KEY ${keyFile} is not the key of the certificate in LEADCHAT_TLS_CERT ${certFile}`,
      }),
    ]);
  } finally {
    await gw.stop();
    removeDir(gw.dataDir);
  }
  expect(await gw.exited).toBe(0);
});

test('the generated admin token is rotated as the README says: stop, remove data/admin-token, start', async () => {
  const dataDir = tempDir('leadchat-rotate-admin-');
  const admin = async (gw: TestGateway, token: string) =>
    (await request(gw, 'GET', '/admin/v1/jobs', { headers: { authorization: `Bearer ${token}` } })).status;
  const file = path.join(dataDir, 'admin-token');
  // The token from the data dir, as a gateway without LEADCHAT_ADMIN_TOKEN has it.
  let gw = await startGateway({ LEADCHAT_ADMIN_TOKEN: '' }, dataDir);
  const old = readFileSync(file, 'utf8').trim();
  expect(await admin(gw, old)).toBe(200);
  await gw.stop();
  rmSync(file);
  gw = await startGateway({ LEADCHAT_ADMIN_TOKEN: '' }, dataDir);
  try {
    const renewed = readFileSync(file, 'utf8').trim();
    expect(renewed).not.toBe(old);
    expect([await admin(gw, old), await admin(gw, renewed)]).toEqual([401, 200]);
  } finally {
    await gw.stop();
    removeDir(dataDir);
  }
});
