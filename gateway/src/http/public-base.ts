import { listeningUrl, type Config } from '../config.js';

/**
 * The gateway's public address, for every link it makes (invitations, the channels' webhook addresses, the OpenAPI
 * document's server): LEADCHAT_PUBLIC_URL, else the address it listens on. Never the request's Host header: that
 * is the client's to write, and a link made from it would send whoever follows it wherever the client chose.
 */
export function publicBase(config: Pick<Config, 'publicUrl' | 'host' | 'port'>): string {
  return config.publicUrl ?? listeningUrl(config.host, config.port);
}
