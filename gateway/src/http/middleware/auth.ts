import type { RequestHandler } from 'express';
import { checkCsrf, sessionOf } from '../../console/server/sessions.js';
import type { Gateway } from '../../context.js';
import { findByApiKey } from '../../domain/accounts.js';
import { sameSecret } from '../../domain/secrets.js';
import { unauthorized } from '../../errors.js';

/**
 * Spec §5.3: the key comes as `?apiKey=`, `x-api-key` or `Authorization: Bearer`, except where a route takes
 * the header only (the credit grant), in which case a key anywhere else is refused.
 *
 * A request without any key may instead carry a web console session cookie: it acts as the session's account,
 * under the same rules as its key, and any change it makes must carry the session's CSRF token. A key, when
 * given, decides alone, so API clients work exactly as they did.
 */
export function apiKeyAuth(gw: Gateway, { headerOnly = false } = {}): RequestHandler {
  return async (req, res, next) => {
    // An empty header counts as absent, so it never hides a key given another way.
    const header = req.get('x-api-key')?.trim() || undefined;
    // With a key in the header, the other places are never looked at, nor the query string parsed.
    const bearer = header ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
    const query = header || typeof req.query.apiKey !== 'string' ? undefined : req.query.apiKey;
    if (!header && !bearer && !query && req.get('cookie')) {
      const signedIn = await sessionOf(gw, req);
      if (!signedIn) throw unauthorized();
      checkCsrf(req, signedIn.token);
      res.locals.account = signedIn.account;
      return next();
    }
    if (headerOnly && (bearer || query) && !header) throw unauthorized('This endpoint takes the API key in the x-api-key header only');
    const key = headerOnly ? header : (header ?? bearer ?? query);
    const account = key ? await findByApiKey(gw, key) : undefined;
    if (!account) throw unauthorized();
    res.locals.account = account;
    next();
  };
}

export function adminAuth(token: string): RequestHandler {
  return (req, _res, next) => {
    const given = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
    if (!given || !sameSecret(given, token)) throw unauthorized('Invalid or missing admin token');
    next();
  };
}
