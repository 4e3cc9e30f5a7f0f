import type { RequestHandler } from 'express';
import type { Logger } from '../../log.js';

/** Paths that carry a secret of their own: an invitation's token is logged as its placeholder. */
const SECRET_PATH = /^(\/console\/api\/invites\/)[^/?]+/;

/** One line per request: method, path (never the query, which may hold an API key), status and time. */
export function requestLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info(
        {
          method: req.method,
          path: req.originalUrl.split('?')[0]!.replace(SECRET_PATH, '$1{token}'),
          status: res.statusCode,
          ms: Math.round(ms * 10) / 10,
          account: res.locals.account?.id,
        },
        'request',
      );
    });
    next();
  };
}
