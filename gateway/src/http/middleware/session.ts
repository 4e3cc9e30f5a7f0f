import type { Request, RequestHandler } from 'express';
import type { Gateway } from '../../context.js';
import { csrfTokenOf, sessionByToken, type SignedIn } from '../../domain/sessions.js';
import { sameSecret } from '../../domain/secrets.js';
import { forbidden, unauthorized } from '../../errors.js';
import { sessionCookieValue } from '../cookies.js';

export const CSRF_HEADER = 'x-csrf-token';

/** The live console session a request's cookie names, with its account. */
export async function sessionOf(gw: Gateway, req: Request): Promise<SignedIn | undefined> {
  const token = sessionCookieValue(req.get('cookie'));
  return token ? sessionByToken(gw, token) : undefined;
}

/** Admits a request with a live console session only, kept for the handler in `res.locals.signedIn`. */
export function signedInOnly(gw: Gateway): RequestHandler {
  return async (req, res, next) => {
    const signedIn = await sessionOf(gw, req);
    if (!signedIn) throw unauthorized('Not signed in to the console');
    res.locals.signedIn = signedIn;
    next();
  };
}

/** Methods that change nothing; every other one must carry the CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A change must carry its session's CSRF token. A read need not; one that carries a token must carry its session's:
 * a console page sends it with its reads too, so that once someone else signed the browser in (in another tab), the
 * page of the member before reads nothing as them.
 */
export function checkCsrf(req: Request, token: string): void {
  const given = req.get(CSRF_HEADER);
  if (SAFE_METHODS.has(req.method) && given === undefined) return;
  if (!given || !sameSecret(given, csrfTokenOf(token))) {
    throw forbidden(
      'CSRF_TOKEN_INVALID',
      `A change made with a console session needs the ${CSRF_HEADER} header of that session`,
    );
  }
}
