import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type RequestHandler } from 'express';
import type { Gateway } from '../../context.js';
import { notFoundHandler } from '../../http/errors.js';
import {
  CONSOLE_BASE,
  HOME_PATH,
  INVITE_PATH,
  mayOpen,
  PAGES,
  REDIRECTS,
  SIGN_IN_PATH,
  type ConsolePage,
} from '../pages.js';
import { consoleHeaders } from './headers.js';
import { sessionApi } from './session-api.js';
import type { ChangeStreams } from './change-streams.js';
import { streamApi } from './stream-api.js';
import { businessHoursApi } from './business-hours-api.js';
import { sessionOf } from '../../http/middleware/session.js';
import { SHELL_HTML } from './shell.js';

/** The browser app as the build leaves it: dist/console/public next to dist/console/server. */
const PUBLIC_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'public');

const local = (page: string) => page.slice(CONSOLE_BASE.length) || '/';

/**
 * The web console under /console: its pages (each the same HTML shell, served only to a signed-in user; anyone
 * else is sent to the sign-in page), its built assets, and its session API. Everything else it does goes through
 * /v1 with the session, under the same rules as an API key.
 *
 * A page above the signed-in member's role (an agent opening Settings) is answered 403, still with the shell: the
 * app tells the member why, with the navigation they may use. The invitation page needs no session: whoever opens
 * it is not a member yet.
 */
export function consoleRouter(gw: Gateway, streams: ChangeStreams): Router {
  const router = Router();
  router.use(consoleHeaders);
  router.use(
    '/assets',
    express.static(PUBLIC_DIR, {
      index: false,
      redirect: false,
      setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
    }),
    notFoundHandler,
  );
  router.use(
    '/api',
    sessionApi(gw, `${CONSOLE_BASE}/api`),
    streamApi(gw, `${CONSOLE_BASE}/api`, streams),
    businessHoursApi(gw, `${CONSOLE_BASE}/api`),
    notFoundHandler,
  );

  const toSignIn: RequestHandler = (req, res) => {
    // Back to the page asked for, but for an API key a link put in its query: a secret is never echoed.
    const back = new URL(req.originalUrl, 'https://console.invalid');
    back.searchParams.delete('apiKey');
    res.redirect(302, `${SIGN_IN_PATH}?next=${encodeURIComponent(back.pathname + back.search)}`);
  };
  const page =
    (status: number, p?: ConsolePage): RequestHandler =>
    async (req, res, next) => {
      const signedIn = await sessionOf(gw, req);
      if (!signedIn) return toSignIn(req, res, next);
      res
        .status(p && !mayOpen(p, signedIn.actor.role) ? 403 : status)
        .type('html')
        .send(SHELL_HTML);
    };

  for (const [from, to] of Object.entries(REDIRECTS)) router.get(local(from), (_req, res) => res.redirect(302, to));
  router.get(local(SIGN_IN_PATH), async (req, res) => {
    if (await sessionOf(gw, req)) return res.redirect(302, HOME_PATH);
    res.type('html').send(SHELL_HTML);
  });
  router.get(local(INVITE_PATH), (_req, res) => void res.type('html').send(SHELL_HTML));
  for (const p of PAGES) router.get(local(p.path), page(200, p));
  // The app draws its own "not found" inside the shell, with the navigation to go on from there.
  router.get('/{*rest}', page(404));
  return router;
}
