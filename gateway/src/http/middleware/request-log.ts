import type { RequestHandler } from 'express';
import type { Logger } from '../../log.js';
import { loggedPath } from '../logged-path.js';

/** One line per request: method, path (never the query, which may hold an API key), status and time. */
export function requestLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info(
        {
          method: req.method,
          path: loggedPath(req),
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
