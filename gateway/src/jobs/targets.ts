import dns from 'node:dns';
import net from 'node:net';
import type { WebhookTargets } from '../config.js';

/**
 * The operator's restriction on webhook receivers (LEADCHAT_WEBHOOK_TARGETS). It is enforced on the address a
 * host name resolves to at connect time, so a name that later resolves to a private address is still refused.
 */
const privateRanges = new net.BlockList();
for (const [addr, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) privateRanges.addSubnet(addr, prefix, 'ipv4');
for (const [addr, prefix] of [['::', 127], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['::ffff:0:0', 96]] as const) {
  privateRanges.addSubnet(addr, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  return privateRanges.check(address, net.isIPv6(address) ? 'ipv6' : 'ipv4');
}

/** Why a URL may not receive webhooks, or undefined when it may (checked on save, before any DNS). */
export function refuseTarget(policy: WebhookTargets, url: string): string | undefined {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (policy.kind === 'allow' && !policy.hosts.includes(host)) return `host ${host} is not in the allowed webhook targets`;
  if (policy.kind === 'public' && (host === 'localhost' || (net.isIP(host) && isPrivateAddress(host)))) {
    return `host ${host} is a private address; only public webhook targets are allowed`;
  }
  return undefined;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A dns.lookup that refuses private addresses, for the `public` policy. */
export function publicOnlyLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as dns.LookupAddress[];
    const refused = list.find((a) => isPrivateAddress(a.address));
    if (refused) {
      return callback(Object.assign(new Error(`${hostname} resolves to private address ${refused.address}`), { code: 'EPRIVATE' }), []);
    }
    if (options.all) return callback(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
}
