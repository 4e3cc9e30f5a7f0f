import { Router } from 'express';
import type { Gateway } from '../../context.js';
import { createAccount, findByEmail, publicAccount, rotateApiKey, type Account } from '../../domain/accounts.js';
import { useCredits } from '../../domain/credits.js';
import { adminAuth } from '../middleware/auth.js';
import { jsonBody } from '../middleware/json-body.js';
import { parse, route, sendDurable } from '../route.js';
import { adminAccountCreate, creditUsage } from '../schemas.js';

/** The operator's bootstrap: accounts and their API keys, behind the admin token. */
export function adminRouter(gw: Gateway, adminToken: string): Router {
  const router = Router();
  const before = [adminAuth(adminToken)];
  route(router, '/accounts', {
    post: [...jsonBody(), async (req, res) => {
      const { account, apiKey } = await createAccount(gw, parse(adminAccountCreate, req.body));
      res.status(201).set('Cache-Control', 'no-store').json({ ...publicAccount(account), apiKey });
    }],
    get: async (req, res) => {
      const email = typeof req.query.email === 'string' ? req.query.email : undefined;
      const accounts = email ? [findByEmail(gw, email)].filter((a) => a !== undefined) : gw.store.all<Account>('accounts');
      await sendDurable(gw, res, { data: accounts.map(publicAccount) });
    },
  }, before);
  route(router, '/accounts/:id/api-key', {
    post: async (req, res) => {
      res.set('Cache-Control', 'no-store').json({ apiKey: await rotateApiKey(gw, String(req.params.id)) });
    },
  }, before);
  route(router, '/accounts/:id/credits/usage', {
    post: [...jsonBody(), async (req, res) => {
      const { amount, description } = parse(creditUsage, req.body);
      res.json(await useCredits(gw, String(req.params.id), amount, description));
    }],
  }, before);
  return router;
}
