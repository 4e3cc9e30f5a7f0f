import { Router } from 'express';
import type { Gateway } from '../../context.js';
import {
  createAccount,
  findByEmail,
  getAccount,
  publicAccount,
  rotateApiKey,
  type Account,
} from '../../domain/accounts.js';
import { accountDeletion, deleteAccount, publicDeletion } from '../../domain/account-deletion.js';
import { inviteMember } from '../../domain/members.js';
import { invitationView } from './members.js';
import { backupRoutes } from './backup.js';
import { useCredits } from '../../domain/credits.js';
import { setPassword } from '../../domain/passwords.js';
import { jsonBody } from '../middleware/json-body.js';
import { readPage } from '../paging.js';
import { parse, route, routerRoutes, sendDurable, type Guards } from '../route.js';
import {
  adminAccountCreate,
  clockAdvance,
  creditUsage,
  jobListQuery,
  memberInvite,
  passwordChange,
} from '../schemas.js';
import { notFound } from '../../errors.js';
import type { Job } from '../../store/store.js';
import { advanceClock } from '../../clock.js';
import { parseDuration } from '../../domain/durations.js';

/** The operator's bootstrap: accounts and their API keys, behind the admin token. */
export function adminRouter(gw: Gateway, guards: Pick<Guards, 'operator'>): Router {
  const router = Router();
  const admin = routerRoutes(router, '/admin/v1', guards);
  route(admin, '/accounts', {
    post: [
      jsonBody(),
      async (req, res) => {
        const { account, apiKey } = await createAccount(gw, parse(adminAccountCreate, req.body));
        res
          .status(201)
          .set('Cache-Control', 'no-store')
          .json({ ...publicAccount(account), apiKey });
      },
    ],
    get: async (req, res) => {
      const email = typeof req.query.email === 'string' ? req.query.email : undefined;
      const accounts = email
        ? [await findByEmail(gw.store, email)].filter((a) => a !== undefined)
        : await gw.store.scan<Account>('accounts');
      await sendDurable(gw, res, { data: accounts.map(publicAccount) });
    },
  });
  // The account is gone at once, its data in the background: 202 with the deletion, which .../deletion follows.
  route(admin, '/accounts/:id', {
    delete: async (req, res) => {
      const deletion = await deleteAccount(gw.store, String(req.params.id));
      res.status(deletion.status === 'done' ? 200 : 202).json(publicDeletion(deletion));
    },
  });
  route(admin, '/accounts/:id/deletion', {
    get: async (req, res) => {
      await sendDurable(gw, res, publicDeletion(await accountDeletion(gw.store, String(req.params.id))));
    },
  });
  route(admin, '/accounts/:id/api-key', {
    post: async (req, res) => {
      res.set('Cache-Control', 'no-store').json({ apiKey: await rotateApiKey(gw, String(req.params.id)) });
    },
  });
  // The web console's sign-in password; setting it signs the account out of every console session.
  route(admin, '/accounts/:id/password', {
    put: [
      jsonBody(),
      async (req, res) => {
        const { password } = parse(passwordChange, req.body);
        const { account, sessionsEnded } = await setPassword(gw, String(req.params.id), password);
        res.set('Cache-Control', 'no-store').json({ ...publicAccount(account), passwordSet: true, sessionsEnded });
      },
    ],
  });
  // An account's team from the command line: the invitation's link is printed for the operator to pass on.
  route(admin, '/accounts/:id/members', {
    post: [
      jsonBody(),
      async (req, res) => {
        const account = await getAccount(gw.store, String(req.params.id));
        const invitation = await inviteMember(gw, account, parse(memberInvite, req.body));
        res.status(201).set('Cache-Control', 'no-store').json(invitationView(gw, invitation));
      },
    ],
  });
  route(admin, '/accounts/:id/credits/usage', {
    post: [
      jsonBody(),
      async (req, res) => {
        const { amount, description } = parse(creditUsage, req.body);
        res.json(await useCredits(gw, String(req.params.id), amount, description));
      },
    ],
  });
  route(admin, '/jobs', {
    get: async (req, res) => {
      const query = parse(jobListQuery, req.query, 'query');
      await sendDurable(
        gw,
        res,
        await readPage({ gw, req, owner: 'admin' }, query, (page) => gw.store.jobs.list(query.status, page), publicJob),
      );
    },
  });
  route(admin, '/jobs/:id/retry', {
    post: async (req, res) => {
      if (!(await gw.store.jobs.revive(String(req.params.id)))) throw notFound('Job', 'Dead job not found');
      res.json({ success: true });
    },
  });
  backupRoutes(admin, gw);
  if (gw.config.testClock) {
    // Tests move time instead of waiting for it: every process of the deployment must be moved the same.
    route(admin, '/clock', {
      post: [
        jsonBody(),
        (req, res) => {
          const { advance } = parse(clockAdvance, req.body);
          res.json({ now: new Date(advanceClock(parseDuration(advance, { field: 'advance' }))).toISOString() });
        },
      ],
    });
  }
  return router;
}

/** A job as the operator sees it: what it does, for whom, how often it ran and why it stopped. */
const publicJob = (j: Job) => ({
  id: j.id,
  kind: j.kind,
  queue: j.queue,
  accountId: j.accountId,
  data: j.data,
  status: j.status,
  runAt: j.runAt === null ? null : new Date(j.runAt).toISOString(),
  attempts: j.attempts,
  lastError: j.lastError,
  createdAt: j.createdAt,
  updatedAt: j.updatedAt,
});
