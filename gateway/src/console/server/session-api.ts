import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Gateway } from '../../context.js';
import type { Account } from '../../domain/accounts.js';
import { forbidden, unauthorized } from '../../errors.js';
import { jsonBody } from '../../http/middleware/json-body.js';
import { parse, route } from '../../http/route.js';
import { clearedSessionCookie, sessionCookie } from '../../http/cookies.js';
import { csrfTokenOf, endSession, IDLE_MS, MAX_AGE_MS, startSession, type Session } from '../../domain/sessions.js';
import { checkCsrf, sessionOf } from '../../http/middleware/session.js';
import { checkSignIn } from './sign-in.js';

const signInBody = z.object({
  email: z.string().max(320),
  password: z.string().max(200),
});

/** What the console is told about its session: whose it is, and the CSRF token its changes must carry. */
const sessionView = (account: Account, session: Session, token: string) => ({
  account: { id: account.id, name: account.name, email: account.email, type: account.type },
  csrfToken: csrfTokenOf(token),
  expiresAt: new Date(session.expiresAt).toISOString(),
  idleMinutes: IDLE_MS / 60_000,
});

/**
 * Sign-in and sign-out are only accepted from the console's own pages: a page of another site could otherwise
 * sign a visitor into an account of its choosing. Browsers send Origin on every POST and DELETE.
 */
function requireSameOrigin(req: Request): void {
  const origin = req.get('origin');
  if (origin !== undefined && origin !== `${req.protocol}://${req.get('host')}`) {
    throw forbidden('CROSS_ORIGIN', 'The console accepts this only from its own pages');
  }
}

/** `/console/api/session`: sign in (POST), who is signed in with which CSRF token (GET), sign out (DELETE). */
export function sessionApi(gw: Gateway): Router {
  const router = Router();
  route(router, '/session', {
    post: [jsonBody('4kb'), async (req, res: Response) => {
      requireSameOrigin(req);
      const { email, password } = parse(signInBody, req.body);
      const account = await checkSignIn(gw, email, password, req.ip ?? '');
      // A session the browser still held is ended, so a sign-in always starts from a token nobody else saw.
      const previous = await sessionOf(gw, req);
      if (previous) await endSession(gw, previous.session.id);
      const { token, session } = await startSession(gw, account.id);
      res.set('Set-Cookie', sessionCookie(token, MAX_AGE_MS)).json(sessionView(account, session, token));
    }],
    get: async (req, res) => {
      const signedIn = await sessionOf(gw, req);
      if (!signedIn) throw unauthorized('Not signed in to the console');
      res.json(sessionView(signedIn.account, signedIn.session, signedIn.token));
    },
    delete: async (req, res) => {
      requireSameOrigin(req);
      const signedIn = await sessionOf(gw, req);
      if (signedIn) {
        checkCsrf(req, signedIn.token);
        await endSession(gw, signedIn.session.id);
      }
      res.set('Set-Cookie', clearedSessionCookie()).status(204).end();
    },
  });
  return router;
}
