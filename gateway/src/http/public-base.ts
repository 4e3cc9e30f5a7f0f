import type { Config } from '../config.js';

/** Listening on every interface names no address a link could use: the machine itself is what it serves. */
const EVERY_INTERFACE = new Set(['0.0.0.0', '::', '[::]']);

/**
 * The gateway's public address, for every link it makes (invitations, the channels' webhook addresses, the OpenAPI
 * document's server): LEADCHAT_PUBLIC_URL, else the address it listens on. Never the request's Host header: that
 * is the client's to write, and a link made from it would send whoever follows it wherever the client chose.
 */
export function publicBase(config: Pick<Config, 'publicUrl' | 'host' | 'port'>): string {
  if (config.publicUrl) return config.publicUrl;
  const host = EVERY_INTERFACE.has(config.host)
    ? 'localhost'
    : config.host.includes(':') && !config.host.startsWith('[')
      ? `[${config.host}]`
      : config.host;
  return `https://${host}:${config.port}`;
}
