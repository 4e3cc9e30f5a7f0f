import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import tls, { type PeerCertificate } from 'node:tls';
import type { Config } from '../config.js';

/**
 * What the CLI trusts when it calls the gateway: the system's CAs, the operator's LEADCHAT_CA_FILE, and the
 * certificate the gateway is configured with (LEADCHAT_TLS_CERT, else the one generated into the data dir). That
 * certificate is recognised by its fingerprint whatever name it carries: the CLI calls the gateway as localhost,
 * while an operator's certificate names the public host.
 */
export interface Trust {
  ca: string[];
  /** SHA-256 fingerprint of the gateway's own certificate, when there is one to read. */
  own?: string;
}

export async function trustOf(config: Config): Promise<Trust> {
  const own = await readFile(config.tlsCert ?? path.join(config.dataDir, 'tls', 'cert.pem'), 'utf8').catch(
    () => undefined,
  );
  const extra = config.caFile
    ? await readFile(config.caFile, 'utf8').catch((err: Error) => {
        throw new Error(`Cannot read LEADCHAT_CA_FILE: ${err.message}`);
      })
    : undefined;
  return {
    ca: [...tls.rootCertificates, ...(extra ? [extra] : []), ...(own ? [own] : [])],
    own: own ? new X509Certificate(own).fingerprint256 : undefined,
  };
}

/** The TLS options of a request to the gateway under `trust`. */
export const tlsOptionsOf = (trust: Trust) => ({
  ca: trust.ca,
  checkServerIdentity: (host: string, cert: PeerCertificate) =>
    trust.own && cert.fingerprint256 === trust.own ? undefined : tls.checkServerIdentity(host, cert),
});
