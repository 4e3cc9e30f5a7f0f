import type { Gateway } from '../../context.js';
import { enableSubscription, subscribe } from '../../domain/subscriptions.js';
import { getSubscription, publicSubscription, subscriptionPage, unsubscribe } from '../../domain/webhooks.js';
import { jsonBody } from '../middleware/json-body.js';
import { accountPage } from '../paging.js';
import { accountOf, parse, route, sendDurable, type Routes } from '../route.js';
import { webhookCreate } from '../schemas.js';

/** Webhook subscriptions: how an n8n trigger registers itself. The secret is shown once, on creation. */
export function webhooksRoutes(v1: Routes, gw: Gateway): void {
  route(v1, '/webhooks', {
    post: [
      jsonBody(),
      async (req, res) => {
        const { url, events } = parse(webhookCreate, req.body);
        const sub = await subscribe(gw, accountOf(res).id, url, events);
        res
          .status(201)
          .set('Cache-Control', 'no-store')
          .json({ ...publicSubscription(sub), secret: sub.secret });
      },
    ],
    get: accountPage(
      gw,
      (account, _req, page) => subscriptionPage(gw.store, account.id, page),
      (placed) => publicSubscription(placed.doc),
    ),
  });
  route(v1, '/webhooks/:id', {
    get: async (req, res) => {
      const sub = await getSubscription(gw.store, accountOf(res).id, String(req.params.id));
      await sendDurable(gw, res, publicSubscription(sub));
    },
    delete: async (req, res) => {
      await unsubscribe(gw, accountOf(res).id, String(req.params.id));
      res.status(204).end();
    },
  });
  route(v1, '/webhooks/:id/enable', {
    post: async (req, res) => {
      const sub = await enableSubscription(gw, accountOf(res).id, String(req.params.id));
      res.json(publicSubscription(sub));
    },
  });
}
