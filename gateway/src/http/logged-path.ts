import type { Request } from 'express';

/**
 * Paths that carry a secret of their own: an invitation's token is logged as its placeholder. Routes match paths
 * whatever their case, so the placeholder does too.
 */
const SECRET_PATH = /^(\/console\/api\/invites\/)[^/?]+/i;

/** A request's path as every log line shows it: never its query (which may hold an API key), nor a token in it. */
export const loggedPath = (req: Pick<Request, 'originalUrl'>): string =>
  req.originalUrl.split('?')[0]!.replace(SECRET_PATH, '$1{token}');
