import type { Gateway } from '../../context.js';
import { getAccount, rotateApiKey } from '../../domain/accounts.js';
import { publicBotSettings, updateBotSettings } from '../../domain/bot-settings.js';
import { publicSettings, rotateWebhookSecret, updateSettings } from '../../domain/settings.js';
import { sendTestEvent } from '../../jobs/webhook-test.js';
import { rateLimited } from '../../errors.js';
import { jsonBody } from '../middleware/json-body.js';
import { accountOf, auditBy, parse, route, sendDurable, type Routes } from '../route.js';
import { botSettingsUpdate, settingsUpdate } from '../schemas.js';

/** The app's Settings area over the API: Custom Channel Webhook (spec §4.7), API key (spec §5.2) and the bot. */
export function settingsRoutes(v1: Routes, gw: Gateway): void {
  route(v1, '/settings', {
    get: async (_req, res) => {
      const account = await getAccount(gw.store, accountOf(res).id);
      await sendDurable(gw, res.set('Cache-Control', 'no-store'), publicSettings(account));
    },
    put: [
      jsonBody(),
      async (req, res) => {
        const changes = parse(settingsUpdate, req.body);
        res
          .set('Cache-Control', 'no-store')
          .json(publicSettings(await updateSettings(gw, accountOf(res).id, changes, auditBy(res))));
      },
    ],
  });
  route(v1, '/settings/bot', {
    get: async (_req, res) => {
      const account = await getAccount(gw.store, accountOf(res).id);
      await sendDurable(gw, res.set('Cache-Control', 'no-store'), publicBotSettings(account));
    },
    put: [
      jsonBody(),
      async (req, res) => {
        const account = await updateBotSettings(
          gw,
          accountOf(res).id,
          parse(botSettingsUpdate, req.body),
          auditBy(res),
        );
        res.set('Cache-Control', 'no-store').json(publicBotSettings(account));
      },
    ],
  });
  route(v1, '/settings/webhook-secret', {
    post: async (_req, res) => {
      res
        .set('Cache-Control', 'no-store')
        .json(publicSettings(await rotateWebhookSecret(gw, accountOf(res).id, auditBy(res))));
    },
  });
  route(v1, '/settings/webhook-test', {
    post: async (_req, res) => {
      const accountId = accountOf(res).id;
      await testLimit(gw, accountId);
      res.set('Cache-Control', 'no-store').json(await sendTestEvent(gw, accountId));
    },
  });
  route(v1, '/api-key', {
    post: async (_req, res) => {
      res.set('Cache-Control', 'no-store').json({ apiKey: await rotateApiKey(gw, accountOf(res).id, auditBy(res)) });
    },
  });
}

const TESTS_PER_MINUTE = 10;

/**
 * Test events go out at once, not through the retried queue: a few a minute per account, counted in the store so
 * that every process shares the count, keep the button from turning the gateway into a tool for flooding a URL.
 */
async function testLimit(gw: Gateway, accountId: string): Promise<void> {
  const { hits, resetAt } = await gw.store.hit(`webhook-test:${accountId}`, 60_000);
  if (hits <= TESTS_PER_MINUTE) return;
  throw rateLimited(resetAt, (seconds) => `At most ${TESTS_PER_MINUTE} test events a minute; retry after ${seconds} s`);
}
