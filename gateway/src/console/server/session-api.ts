import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Gateway } from '../../context.js';
import { getAccount, type Account } from '../../domain/accounts.js';
import { acceptInvitation, actorOf, availabilityOf, invitationOf, type Actor } from '../../domain/members.js';
import { iso } from '../../ids.js';
import { forbidden } from '../../errors.js';
import { jsonBody } from '../../http/middleware/json-body.js';
import { parse, route, routerRoutes, type Routes } from '../../http/route.js';
import {
  clearedSessionCookie,
  cookieValue,
  KNOWN_BROWSER_COOKIE,
  knownBrowserCookie,
  sessionCookie,
} from '../../http/cookies.js';
import {
  csrfTokenOf,
  endSession,
  IDLE_MS,
  MAX_AGE_MS,
  startSession,
  switchableAccounts,
  type Session,
  type SignedIn,
} from '../../domain/sessions.js';
import { checkCsrf, sessionOf, signedInOnly } from '../../http/middleware/session.js';
import { passwordChange } from '../../http/schemas.js';
import { publicBase } from '../../http/public-base.js';
import { checkSignIn, sameKeyElsewhere, signInFailed, type SignInResult } from './sign-in.js';
import { KNOWN_BROWSER_MS, knownBrowserId, knownBrowserValue } from './known-browser.js';

const signInBody = z.object({
  email: z.string().max(320),
  password: z.string().max(200),
  /** Which account, when one email and password open several. */
  accountId: z.string().max(100).optional(),
});

/**
 * What the console is told about its session: whose it is, the CSRF token its changes must carry, and the other
 * accounts the person may switch to (those their password opened too; switching asks for it again).
 */
const sessionView = async (gw: Gateway, account: Account, actor: Actor, session: Session, token: string) => ({
  account: {
    id: account.id,
    name: account.name,
    email: account.email,
    type: account.type,
    defaultCountry: account.defaultCountry ?? null,
  },
  member: {
    id: actor.id,
    name: actor.name,
    email: actor.email,
    role: actor.role,
    availability: availabilityOf(actor),
  },
  csrfToken: csrfTokenOf(token),
  expiresAt: new Date(session.expiresAt).toISOString(),
  idleMinutes: IDLE_MS / 60_000,
  otherAccounts: (await switchableAccounts(gw.store, session, actor.email)).map((a) => ({ id: a.id, name: a.name })),
});

/**
 * Sign-in and sign-out are only accepted from the console's own pages: a page of another site could otherwise
 * sign a visitor into an account of its choosing. Browsers send Origin on every POST and DELETE. The console's
 * origin is the one the request was sent to, or the gateway's public address: a proxy may forward a Host of its
 * own (nginx's default is the upstream's address), which no browser's Origin names.
 */
function requireSameOrigin(gw: Gateway, req: Request): void {
  const origin = req.get('origin');
  if (origin === undefined || origin === `${req.protocol}://${req.get('host')}`) return;
  if (origin !== new URL(publicBase(gw.config)).origin) {
    throw forbidden('CROSS_ORIGIN', 'The console accepts this only from its own pages');
  }
}

/** `/console/api/session`: sign in (POST), who is signed in with which CSRF token (GET), sign out (DELETE). */
export function sessionApi(gw: Gateway, mountedAt: string): Router {
  const router = Router();
  const api = routerRoutes(router, mountedAt, { public: [], 'signed-in': [signedInOnly(gw)] });
  route(api, '/session', {
    post: [
      jsonBody('4kb'),
      async (req, res: Response) => {
        requireSameOrigin(gw, req);
        const { email, password, accountId } = parse(signInBody, req.body);
        const knownBrowser = knownBrowserId(
          gw,
          email.trim().toLowerCase(),
          cookieValue(req.get('cookie'), KNOWN_BROWSER_COOKIE),
        );
        const checked = await checkSignIn(gw, {
          email,
          password,
          address: req.ip ?? '',
          accountId,
          knownBrowser,
        });
        await signIn(gw, req, res, checked);
      },
    ],
    get: async (_req, res) => {
      const signedIn = res.locals.signedIn as SignedIn;
      res.json(await sessionView(gw, signedIn.account, signedIn.actor, signedIn.session, signedIn.token));
    },
    delete: async (req, res) => {
      requireSameOrigin(gw, req);
      const signedIn = await sessionOf(gw, req);
      if (signedIn) {
        checkCsrf(req, signedIn.token);
        await endSession(gw, signedIn.session.id);
      }
      res.set('Set-Cookie', clearedSessionCookie()).status(204).end();
    },
  });
  invitesApi(gw, api);
  return router;
}

/**
 * Starts a session for whoever signed in; a session the browser still held ends, so each starts from a token nobody
 * else saw. The browser is known to the email from now on (its id kept when it was known already). A password
 * replaced while this one was checked opens nothing: the sign-in failed.
 */
async function signIn(
  gw: Gateway,
  req: Request,
  res: Response,
  { account, actor, passwordHash, alsoOpens }: SignInResult,
) {
  const previous = await sessionOf(gw, req);
  if (previous) await endSession(gw, previous.session.id);
  // The address as the sign-in's rate limits saw it (Express's req.ip, under LEADCHAT_TRUST_PROXY).
  const audited = {
    by: { accountId: account.id, actor: { type: 'member' as const, id: actor.id, name: actor.name } },
    ip: req.ip ?? '',
  };
  const started = await startSession(gw, account.id, actor.id, passwordHash, alsoOpens, audited);
  if (!started) throw signInFailed();
  const { token, session } = started;
  const email = actor.email.toLowerCase();
  const browser = knownBrowserValue(
    gw,
    email,
    knownBrowserId(gw, email, cookieValue(req.get('cookie'), KNOWN_BROWSER_COOKIE)),
  );
  res
    .set({
      'Set-Cookie': [sessionCookie(token, MAX_AGE_MS), knownBrowserCookie(browser, KNOWN_BROWSER_MS)],
      'Cache-Control': 'no-store',
    })
    .json(await sessionView(gw, account, actor, session, token));
}

/**
 * `/console/api/invites/{token}`: what an invitation's link opens (GET: whose team, for which email) and its
 * acceptance (POST: the member sets a password, is active, and is signed in).
 */
function invitesApi(gw: Gateway, api: Routes): void {
  route(api, '/invites/:token', {
    get: async (req, res) => {
      const member = await invitationOf(gw.store, String(req.params.token));
      const account = await getAccount(gw.store, member.accountId);
      res.set('Cache-Control', 'no-store').json({
        account: { name: account.name },
        member: { name: member.name, email: member.email, role: member.role, status: member.status },
        expiresAt: iso(member.inviteExpiresAt!),
      });
    },
    post: [
      jsonBody('4kb'),
      async (req, res) => {
        requireSameOrigin(gw, req);
        const { password } = parse(passwordChange, req.body);
        const member = await acceptInvitation(gw, String(req.params.token), password);
        const account = await getAccount(gw.store, member.accountId);
        const alsoOpens = await sameKeyElsewhere(gw, member.email, password, account.id);
        await signIn(gw, req, res, { account, actor: actorOf(member), passwordHash: member.passwordHash!, alsoOpens });
      },
    ],
  });
}
