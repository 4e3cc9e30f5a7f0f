import dns from 'node:dns';
import type { OptionsInit } from 'got';
import type { TargetPolicy } from '../config.js';
import { guardedLookup, refuseConnection, TargetRefusedError } from './target-policy.js';

/**
 * The options that hold a got request to the target policy when it connects: the first URL and every redirect by
 * scheme and host, and under `public` every host name by the addresses it resolves to. An address written as a
 * host is never looked up, which is why the URL itself is checked before the request and each redirect.
 *
 * `trustedOrigin` is an origin the operator configured (a provider's API): its URL is not a tenant's and is not
 * judged, but where it redirects to is.
 */
export function guard(policy: TargetPolicy, trustedOrigin?: string): Pick<OptionsInit, 'dnsLookup' | 'hooks'> {
  const check = (url: URL | string | undefined) => {
    const target = new URL(String(url));
    const refused = refuseConnection(policy, target);
    if (refused) throw new TargetRefusedError(refused);
  };
  const trustedHost = trustedOrigin && new URL(trustedOrigin).hostname;
  const lookup: typeof guardedLookup = (hostname, options, callback) =>
    hostname === trustedHost
      ? dns.lookup(hostname, options, callback as never)
      : guardedLookup(hostname, options, callback);
  return {
    ...(policy.kind === 'public' ? { dnsLookup: lookup as never } : {}),
    hooks: {
      beforeRequest: [
        (options) => {
          if (new URL(String(options.url)).origin !== trustedOrigin) check(options.url);
        },
      ],
      beforeRedirect: [(options) => check(options.url)],
    },
  };
}
