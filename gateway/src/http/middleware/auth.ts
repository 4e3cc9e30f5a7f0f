import type { Request, RequestHandler } from 'express';
import { checkCsrf, sessionOf } from './session.js';
import type { Gateway } from '../../context.js';
import { findByApiKey } from '../../domain/accounts.js';
import { ownerOf } from '../../domain/members.js';
import { sameSecret } from '../../domain/secrets.js';
import { ApiError, unauthorized } from '../../errors.js';
import type { AuthFailures } from './auth-failures.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
/** An Authorization value that gives a Bearer key, one word or not. */
const BEARER_GIVEN = /^Bearer\s+\S/i;

export const ambiguousCredentials = () =>
  new ApiError(
    400,
    'AMBIGUOUS_CREDENTIALS',
    'Give the API key once: in x-api-key, Authorization: Bearer or ?apiKey=, not in two places',
  );

/** A request with a console cookie but no session behind it, and no API key. */
const NO_SESSION =
  'Not signed in to the console (the session ended) and no API key given: sign in again, or send the API key in the x-api-key header';

/**
 * Spec §5.3: the key comes as `?apiKey=`, `x-api-key` or `Authorization: Bearer` (the credit grant takes the header
 * only: see keyInHeaderOnly). A key in two places (even the same key twice) is refused: answering as one of them
 * would let a proxy's key and a caller's disagree unseen.
 *
 * A request without any key may instead carry a web console session cookie: it acts as the session's member (or
 * owner) on the account, under the same rules as its key within the member's role, and any change it makes must
 * carry the session's CSRF token. A key acts as the account's owner. A key, when
 * given, decides alone, so API clients work exactly as they did.
 *
 * A wrong key counts against the client's address (see AuthFailures); a missing one does not, since it guesses nothing.
 * A valid key is never refused for its address's failures: they are looked at only once the key has failed.
 */
export function apiKeyAuth(gw: Gateway, failures: AuthFailures): RequestHandler {
  return async (req, res, next) => {
    // An empty value counts as absent, so it never hides a key given another way. Node joins a repeated
    // x-api-key header with ", ", which no key holds.
    const header = req.get('x-api-key')?.trim() || undefined;
    const authorization = req.get('authorization') ?? '';
    // A Bearer value that is not one word is no key, but it was given: beside another key it is still a second one.
    const bearerGiven = BEARER_GIVEN.test(authorization);
    const bearer = bearerGiven ? BEARER.exec(authorization)?.[1] : undefined;
    const inQuery = queryKeys(req);
    const given = (header ? (header.includes(', ') ? 2 : 1) : 0) + (bearerGiven ? bearers(req) : 0) + inQuery.length;
    if (given > 1) throw ambiguousCredentials();
    if (given === 0 && req.get('cookie')) {
      const signedIn = await sessionOf(gw, req);
      // A cookie of a session that ended (signed out, expired, its member removed), or of something else.
      if (!signedIn) throw unauthorized(NO_SESSION);
      checkCsrf(req, signedIn.token);
      res.locals.account = signedIn.account;
      res.locals.actor = signedIn.actor;
      res.locals.sessionId = signedIn.session.id;
      return next();
    }
    const key = header ?? bearer ?? inQuery[0];
    if (!key) throw unauthorized();
    const account = await findByApiKey(gw, key);
    if (!account) {
      await failures.failed(req.ip);
      throw unauthorized();
    }
    res.locals.account = account;
    res.locals.actor = ownerOf(account);
    next();
  };
}

/**
 * How many `Authorization: Bearer` headers the request has. Node keeps only the first of two Authorization headers
 * (a proxy's beside the caller's), so they are counted in the raw headers: answering as the first would be
 * answering as one of two keys.
 */
function bearers(req: Request): number {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() === 'authorization' && BEARER_GIVEN.test(req.rawHeaders[i + 1]!)) count++;
  }
  return count;
}

/** Spec §4.6: the credit grant takes its key in `x-api-key` only; one given another way is refused, whoever's it is. */
export const keyInHeaderOnly: RequestHandler = (req, _res, next) => {
  if (BEARER_GIVEN.test(req.get('authorization') ?? '') || queryKeys(req).length > 0) {
    throw unauthorized('This endpoint takes the API key in the x-api-key header only');
  }
  next();
};

/**
 * The non-empty `apiKey` values of the query string, without the spaces and line ends around them: a key holds
 * none, and one pasted with them (into n8n, which sends it as it was given) works here as it does in a header, whose
 * value the HTTP parser trims. Parsing a query string costs more than looking into it: one that cannot hold the
 * name (not written out, nor hidden behind %-escapes) is not parsed, so the usual request, with its key in a header,
 * pays next to nothing for this check.
 */
function queryKeys(req: Request): string[] {
  const at = req.url.indexOf('?');
  if (at < 0) return [];
  const search = req.url.slice(at + 1);
  if (!search.includes('apiKey') && !search.includes('%')) return [];
  const value: unknown = req.query.apiKey;
  return [value]
    .flat()
    .map((v) => (typeof v === 'string' ? v.trim() : ''))
    .filter((v) => v !== '');
}

/**
 * The operator's token (or one of `alsoAccepted`, given for one use: the metrics scraper's), as `Authorization: Bearer`;
 * a wrong one counts against the address as a wrong API key does.
 */
export function adminAuth(token: string, failures: AuthFailures, alsoAccepted: string[] = []): RequestHandler {
  const tokens = [token, ...alsoAccepted];
  return async (req, _res, next) => {
    const given = BEARER.exec(req.get('authorization') ?? '')?.[1];
    if (!given) throw unauthorized('Invalid or missing admin token');
    // Every token is compared, so the time taken does not tell which one came close.
    if (!tokens.map((t) => sameSecret(given, t)).includes(true)) {
      await failures.failed(req.ip);
      throw unauthorized('Invalid or missing admin token');
    }
    next();
  };
}
