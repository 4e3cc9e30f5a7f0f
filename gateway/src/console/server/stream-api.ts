import { Router, type RequestHandler } from 'express';
import type { Gateway } from '../../context.js';
import type { SignedIn } from '../../domain/sessions.js';
import { rateLimits } from '../../http/middleware/rate-limit.js';
import { signedInOnly } from '../../http/middleware/session.js';
import { route, routerRoutes } from '../../http/route.js';
import type { ChangeStreams } from './change-streams.js';

/**
 * `GET /console/api/stream`: the signed-in session's live inbox, as Server-Sent Events (see ChangeStreams and
 * docs/console.md). Opening it spends one request of the session's per-minute budget, like a request to /v1; the
 * events it carries then spend nothing.
 */
export function streamApi(gw: Gateway, mountedAt: string, streams: ChangeStreams): Router {
  const router = Router();
  const api = routerRoutes(router, mountedAt, { 'signed-in': [signedInOnly(gw)] });
  const bySession: RequestHandler = (_req, res, next) => {
    res.locals.sessionId = (res.locals.signedIn as SignedIn).session.id;
    next();
  };
  const budget = rateLimits(gw.store, {
    perKey: gw.config.rateLimitPerMinute,
    perSession: gw.config.consoleRateLimitPerMinute,
  });
  route(api, '/stream', {
    get: [
      bySession,
      budget,
      (req, res) => {
        const { session } = res.locals.signedIn as SignedIn;
        // A HEAD asks what a GET would answer, not to be held open.
        if (req.method === 'HEAD') return void res.status(200).type('text/event-stream').end();
        // EventSource sends Last-Event-ID by itself when it reconnects; a client opening anew gives it in the query.
        const lastEventId =
          req.get('last-event-id') ?? (typeof req.query.lastEventId === 'string' ? req.query.lastEventId : undefined);
        streams.open(res, session, lastEventId);
      },
    ],
  });
  return router;
}
