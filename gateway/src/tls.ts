import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from './config.js';

export interface TlsFiles {
  cert: string;
  key: string;
  /** Where the certificate came from, for the start-up message. */
  source: string;
}

/**
 * The operator's certificate when configured; otherwise a self-signed one for localhost (SHA-256, EC P-256),
 * generated once into the data dir and reused on every start.
 */
export async function loadTls(config: Config): Promise<TlsFiles> {
  if (config.tlsCert && config.tlsKey) {
    const [cert, key] = await Promise.all([readFile(config.tlsCert, 'utf8'), readFile(config.tlsKey, 'utf8')]).catch((err) => {
      throw new Error(`Cannot read LEADCHAT_TLS_CERT/LEADCHAT_TLS_KEY: ${(err as Error).message}`);
    });
    return { cert, key, source: config.tlsCert };
  }
  const dir = path.join(config.dataDir, 'tls');
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  try {
    return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8'), source: `${certFile} (self-signed)` };
  } catch {
    const notAfterDate = new Date(Date.now() + 825 * 24 * 3_600_000);
    // Loaded only when a certificate is made: most starts reuse the one on disk and need not pay for it.
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
        { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
      ],
    });
    await mkdir(dir, { recursive: true });
    await writeFile(keyFile, pems.private, { mode: 0o600 });
    await writeFile(certFile, pems.cert);
    return { cert: pems.cert, key: pems.private, source: `${certFile} (self-signed, generated now)` };
  }
}
