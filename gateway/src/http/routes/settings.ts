import { Router, type RequestHandler } from 'express';
import type { Gateway } from '../../context.js';
import { getAccount, rotateApiKey } from '../../domain/accounts.js';
import { publicSettings, rotateWebhookSecret, updateSettings } from '../../domain/settings.js';
import { jsonBody } from '../middleware/json-body.js';
import { accountOf, parse, route, sendDurable } from '../route.js';
import { settingsUpdate } from '../schemas.js';

/** The app's Settings area over the API: Custom Channel Webhook (spec §4.7) and API key (spec §5.2). */
export function settingsRouter(gw: Gateway, before: RequestHandler[]): Router {
  const router = Router();
  route(router, '/settings', {
    get: async (_req, res) => {
      const account = await getAccount(gw.store, accountOf(res).id);
      await sendDurable(gw, res.set('Cache-Control', 'no-store'), publicSettings(account));
    },
    put: [jsonBody(), async (req, res) => {
      const changes = parse(settingsUpdate, req.body);
      res.set('Cache-Control', 'no-store').json(publicSettings(await updateSettings(gw, accountOf(res).id, changes)));
    }],
  }, before);
  route(router, '/settings/webhook-secret', {
    post: async (_req, res) => {
      res.set('Cache-Control', 'no-store').json(publicSettings(await rotateWebhookSecret(gw, accountOf(res).id)));
    },
  }, before);
  route(router, '/api-key', {
    post: async (_req, res) => {
      res.set('Cache-Control', 'no-store').json({ apiKey: await rotateApiKey(gw, accountOf(res).id) });
    },
  }, before);
  return router;
}
