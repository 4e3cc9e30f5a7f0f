import type { Gateway } from '../../context.js';
import { enableSubscription, subscribe } from '../../domain/subscriptions.js';
import { getSubscription, publicSubscription, subscriptionPage, type Subscription } from '../../domain/webhooks.js';
import { deleteSubscription } from '../../engine/unsubscribe.js';
import { jsonBody } from '../middleware/json-body.js';
import { accountPage } from '../paging.js';
import { idempotentAnswer } from '../idempotent-answer.js';
import { accountOf, auditBy, parse, route, sendDurable, type Routes } from '../route.js';
import { webhookCreate } from '../schemas.js';

/** Webhook subscriptions: how an n8n trigger registers itself. The secret is shown once, on creation. */
export function webhooksRoutes(v1: Routes, gw: Gateway): void {
  route(v1, '/webhooks', {
    post: [
      jsonBody(),
      async (req, res) => {
        const { url, events } = parse(webhookCreate, req.body);
        const accountId = accountOf(res).id;
        // A subscription whose answer was lost, made again with its Idempotency-Key, is made once: a second one for
        // the same receiver would deliver every event twice. The replay shows the secret again, to the same caller.
        const answer = (sub: Subscription) => ({ ...publicSubscription(sub), secret: sub.secret });
        const { status, response } = await idempotentAnswer(gw, req, res, accountId, 201, async (keep) =>
          answer(await subscribe(gw, accountId, url, events, (tx, made) => keep(tx, answer(made)), auditBy(res))),
        );
        res.status(status).set('Cache-Control', 'no-store').json(response);
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
      await deleteSubscription(gw, accountOf(res).id, String(req.params.id), auditBy(res));
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
