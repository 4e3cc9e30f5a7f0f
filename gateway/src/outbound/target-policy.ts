import dns from 'node:dns';
import net from 'node:net';
import type { TargetPolicy } from '../config.js';
import { isPublicAddress } from './addresses.js';

/**
 * The operator's one policy (LEADCHAT_WEBHOOK_TARGETS) for every URL the gateway connects to on a tenant's behalf:
 * webhooks, the Custom Channel Webhook, the bot's base URL, media it reads. A URL is judged when it is saved, and
 * each connection again when it is made: a host name by the addresses it resolves to then (so a name that later
 * resolves to a private address is still refused), an address by itself, and every redirect the same way.
 */
const REFUSED = 'ETARGETREFUSED';

export class TargetRefusedError extends Error {
  readonly code = REFUSED;

  constructor(message: string) {
    super(message);
    this.name = 'TargetRefusedError';
  }
}

/** Whether a request failed because the policy refused its target (got passes the error's code on). */
export const isTargetRefused = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === REFUSED;

/** The host as a connection sees it: without IPv6 brackets or a root's trailing dot, in lower case. */
const hostOf = (url: URL): string =>
  url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();

/**
 * Why a connection to `url` is refused, judged on its scheme and host alone; undefined when it may be made. Under
 * `public`, a host name passes here and is judged by its addresses when resolved (see `guardedLookup`).
 */
export function refuseConnection(policy: TargetPolicy, url: URL): string | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return `${url.protocol} addresses are not allowed; use https or http`;
  const host = hostOf(url);
  if (policy.kind === 'allow' && !policy.hosts.includes(host)) return `host ${host} is not in the allowed targets`;
  if (policy.kind === 'public' && net.isIP(host) && !isPublicAddress(host))
    return `host ${host} is not a public address; only public targets are allowed`;
  return undefined;
}

/**
 * Whether what a remote service answered may be shown back to the tenant that named it, by the address the
 * connection reached (after DNS, so a public name pointed at a private address counts as private): one on the public
 * internet, or any host the operator allowed by name. From anywhere else (instance metadata at 169.254.169.254, a
 * service on loopback or the private network) the answer is not shown: a tenant would read the operator's own network
 * through the gateway. `undefined` (the address is not known) is not shown either.
 */
export function mayShowAnswer(policy: TargetPolicy, address: string | undefined): boolean {
  if (policy.kind === 'allow') return true;
  return address !== undefined && isPublicAddress(address);
}

/**
 * Why a URL a tenant saves is refused, or undefined when it is accepted. Besides the connection's rules: no user name
 * or password in it (they would be shown back on every read and logged by proxies), and under `public` no loopback
 * name nor a name that resolves to a private address now. A name that does not resolve yet is accepted: it is judged
 * again at each connection.
 */
export async function refuseTarget(policy: TargetPolicy, text: string): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not a URL';
  }
  if (url.username || url.password)
    return 'must not hold a user name or password; receivers check the signature instead';
  const refused = refuseConnection(policy, url);
  if (refused || policy.kind !== 'public') return refused;
  const host = hostOf(url);
  if (net.isIP(host)) return undefined;
  if (host === 'localhost' || host.endsWith('.localhost'))
    return `host ${host} is a loopback name; only public targets are allowed`;
  const addresses = await dns.promises.lookup(host, { all: true }).catch(() => []);
  return addresses.some((a) => !isPublicAddress(a.address)) ? privateName(host) : undefined;
}

const privateName = (host: string) =>
  `host ${host} resolves to an address that is not public; only public targets are allowed`;

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/** A dns.lookup for connections under `public`: a name with any address that is not public is refused. */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as dns.LookupAddress[];
    if (list.some((a) => !isPublicAddress(a.address)))
      return callback(new TargetRefusedError(privateName(hostname)), []);
    if (options.all) return callback(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
}
