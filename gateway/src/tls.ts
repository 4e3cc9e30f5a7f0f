import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from './config.js';
import { makeDir } from './make-dir.js';
import type { GatewaySettings, Store } from './store/store.js';

export interface TlsFiles {
  cert: string;
  key: string;
  /** Where the certificate came from, for the start-up message. */
  source: string;
}

interface Pair {
  cert: string;
  key: string;
}

/** The gateway setting that holds the shared certificate and key on PostgreSQL. */
const SHARED_TLS = 'tls';

/**
 * The operator's certificate when configured. Otherwise a self-signed one for localhost (SHA-256, EC P-256),
 * generated once: on the embedded store into the data dir, reused on every start; on PostgreSQL into the
 * database, so that every process behind a balancer presents the same one.
 */
export async function loadTls(config: Config, store: Store): Promise<TlsFiles> {
  if (config.tlsCert && config.tlsKey) {
    const files = await operatorTls(config.tlsCert, config.tlsKey);
    checkPair(config.tlsCert, files.cert, config.tlsKey, files.key);
    return files;
  }
  return store.backend === 'postgres' ? sharedTls(config.dataDir, store.settings) : dataDirTls(config.dataDir);
}

/**
 * The operator's certificate and key as the files now hold them, when they differ from those served (certbot renewed
 * them: its `live/` links name new files), checked as at start; undefined while they are the same. A pair that cannot
 * be served is thrown, named, and the one served stays.
 */
export async function renewedTls(config: Config, served: TlsFiles): Promise<TlsFiles | undefined> {
  if (!config.tlsCert || !config.tlsKey) return undefined;
  const now = await operatorTls(config.tlsCert, config.tlsKey);
  // Unchanged, it is the pair served: checked when it came, not again each minute.
  if (now.cert === served.cert && now.key === served.key) return undefined;
  checkPair(config.tlsCert, now.cert, config.tlsKey, now.key);
  return now;
}

/** The operator's certificate and key as their files hold them now; each that cannot be read is named. */
async function operatorTls(certFile: string, keyFile: string): Promise<TlsFiles> {
  const [cert, key] = await Promise.allSettled([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
  if (cert.status === 'rejected' || key.status === 'rejected') {
    const unreadable = [
      ...failedRead('LEADCHAT_TLS_CERT', certFile, cert),
      ...failedRead('LEADCHAT_TLS_KEY', keyFile, key),
    ];
    throw new Error(`Cannot read ${unreadable.join('; nor ')}`);
  }
  return { cert: cert.value, key: key.value, source: certFile };
}

const failedRead = (name: string, file: string, read: PromiseSettledResult<string>): string[] =>
  read.status === 'rejected' ? [`${name} ${file}: ${(read.reason as Error).message}`] : [];

/**
 * The operator's files as TLS would take them, each named by its setting: OpenSSL's own words ("PEM routines::no
 * start line", "key values mismatch") name neither the file nor what to fix.
 */
function checkPair(certFile: string, cert: string, keyFile: string, key: string): void {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new Error(`LEADCHAT_TLS_CERT ${certFile} holds no certificate in PEM`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new Error(`LEADCHAT_TLS_KEY ${keyFile} holds no private key in PEM that opens without a passphrase`);
  }
  if (!certificate.checkPrivateKey(privateKey))
    throw new Error(`LEADCHAT_TLS_KEY ${keyFile} is not the key of the certificate in LEADCHAT_TLS_CERT ${certFile}`);
}

const filesOf = (dataDir: string) => {
  const dir = path.join(dataDir, 'tls');
  return { dir, certFile: path.join(dir, 'cert.pem'), keyFile: path.join(dir, 'key.pem') };
};

async function dataDirTls(dataDir: string): Promise<TlsFiles> {
  const { certFile } = filesOf(dataDir);
  const found = await readPair(dataDir);
  if (found) return { ...found, source: `${certFile} (self-signed)` };
  const made = await selfSigned();
  await writePair(dataDir, made);
  return { ...made, source: `${certFile} (self-signed, generated now)` };
}

/**
 * The first process to start stores its certificate (the one its data dir already holds, which clients may trust,
 * or a new one); every process, that one included, then serves what the database kept. The certificate is copied
 * into the data dir, where the operator finds it to trust; a key there of another certificate is removed.
 */
async function sharedTls(dataDir: string, settings: GatewaySettings): Promise<TlsFiles> {
  const { dir, certFile, keyFile } = filesOf(dataDir);
  let stored = await settings.get(SHARED_TLS);
  if (stored === undefined) {
    const offered = (await readPair(dataDir)) ?? (await selfSigned());
    stored = await settings.putIfAbsent(SHARED_TLS, JSON.stringify(offered));
  }
  const pair = JSON.parse(stored) as Pair;
  if ((await readText(certFile)) !== pair.cert) {
    await makeDir(dir);
    await writeFile(certFile, pair.cert);
  }
  const key = await readText(keyFile);
  if (key !== undefined && key !== pair.key) await rm(keyFile, { force: true });
  const fingerprint = new X509Certificate(pair.cert).fingerprint256;
  return {
    ...pair,
    source: `${certFile} (self-signed, shared by every process on the database; SHA-256 ${fingerprint})`,
  };
}

async function readPair(dataDir: string): Promise<Pair | undefined> {
  const { certFile, keyFile } = filesOf(dataDir);
  const [cert, key] = await Promise.all([readText(certFile), readText(keyFile)]);
  return cert !== undefined && key !== undefined ? { cert, key } : undefined;
}

const readText = (file: string): Promise<string | undefined> => readFile(file, 'utf8').catch(() => undefined);

async function writePair(dataDir: string, pair: Pair): Promise<void> {
  const { dir, certFile, keyFile } = filesOf(dataDir);
  await makeDir(dir);
  await writeFile(keyFile, pair.key, { mode: 0o600 });
  await writeFile(certFile, pair.cert);
}

async function selfSigned(): Promise<Pair> {
  const notAfterDate = new Date(Date.now() + 825 * 24 * 3_600_000);
  // Loaded only when a certificate is made: most starts reuse the one stored and need not pay for it.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
