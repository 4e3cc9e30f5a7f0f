/** Where the service expects the key on a given request (spec §5.3). */
export type KeyPlacement = 'bearer' | 'header' | 'query';

/**
 * Spec §5.3 shows the key as the `apiKey` query parameter on the contact lookup, list, send-message and
 * incoming-message endpoints, and as `Authorization: Bearer` in the funnel examples of create-contact and
 * add-to-list. The hosted service is only known to take it there that way, so those endpoints keep it.
 */
export const QUERY_KEY_ENDPOINTS = [
  'GET /contacts',
  'GET /lists',
  'POST /send_custom_channel_message',
  'POST /incoming_custom_channel_message',
] as const;

export const BEARER_KEY_ENDPOINTS = ['POST /contacts', 'POST /lists/{id}/contacts'] as const;

function matches(endpoints: readonly string[], method: string, path: string): boolean {
  return endpoints.some((endpoint) => {
    const [verb, template] = endpoint.split(' ');
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    return verb === method && pattern.test(path);
  });
}

/**
 * The rule for every request: the endpoints above as the spec shows them; every other one (the credit grant, the
 * webhook subscriptions, conversations, the bot switch, team messages and whatever comes next) in the `x-api-key`
 * header, so the key never travels in a URL that proxies and logs keep.
 *
 * `path` is the endpoint under the Base URL, e.g. `/contacts`, without query string.
 */
export function keyPlacementFor(method: string | undefined, path: string): KeyPlacement {
  const verb = (method ?? 'GET').toUpperCase();
  if (matches(QUERY_KEY_ENDPOINTS, verb, path)) return 'query';
  if (matches(BEARER_KEY_ENDPOINTS, verb, path)) return 'bearer';
  return 'header';
}

/**
 * The endpoint path of a request URL under the credential's Base URL: `https://host/v1/contacts?x=1` with Base URL
 * `https://host/v1` is `/contacts`. A URL given relative (as the credential test gives it) is taken as it is.
 */
export function endpointPath(url: string, baseUrl: string): string {
  let path = url.split(/[?#]/)[0] ?? '';
  const base = baseUrl.trim().replace(/\/+$/, '');
  if (base && path.startsWith(base)) {
    path = path.slice(base.length);
  } else {
    // An absolute URL under another base: keep what follows the version segment, the spec's base ends there.
    const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)?$/i.exec(path);
    if (absolute) path = (absolute[1] ?? '/').replace(/^.*?\/v\d+(?=\/)/, '');
  }
  if (!path.startsWith('/')) path = `/${path}`;
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}
