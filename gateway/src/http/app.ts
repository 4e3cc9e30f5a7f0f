import express, { type Express } from 'express';
import { consoleRouter } from '../console/server/router.js';
import type { Gateway } from '../context.js';
import { errorHandler, notFoundHandler } from './errors.js';
import { apiKeyAuth } from './middleware/auth.js';
import { httpsOnly } from './middleware/https-only.js';
import { perKeyRateLimit } from './middleware/rate-limit.js';
import { requestLog } from './middleware/request-log.js';
import { openApiDocument } from './openapi.js';
import { route } from './route.js';
import { adminRouter } from './routes/admin.js';
import { campaignsRouter } from './routes/campaigns.js';
import { channelsRouter } from './routes/channels.js';
import { contactsRouter } from './routes/contacts.js';
import { conversationsRouter } from './routes/conversations.js';
import { creditsRouter } from './routes/credits.js';
import { importsRouter } from './routes/imports.js';
import { listsRouter } from './routes/lists.js';
import { messagesRouter } from './routes/messages.js';
import { providerWebhooksRouter } from './routes/provider-webhooks.js';
import { settingsRouter } from './routes/settings.js';
import { webhooksRouter } from './routes/webhooks.js';

export function createApp(gw: Gateway, adminToken: string): Express {
  const app = express();
  app.disable('x-powered-by');
  // Answers are read once by API clients; hashing every body for an ETag nobody sends back is wasted work.
  app.set('etag', false);
  app.set('trust proxy', gw.config.trustProxy);
  app.set('query parser', 'simple');
  // Each layer costs every request: those with nothing to do in this configuration are left out.
  if (gw.config.trustProxy) app.use(httpsOnly());
  if (gw.log.isLevelEnabled('info')) app.use(requestLog(gw.log));
  app.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Strict-Transport-Security', 'max-age=31536000');
    next();
  });

  const limit = perKeyRateLimit(gw.store, gw.config.rateLimitPerMinute);
  const before = [apiKeyAuth(gw), limit];
  const headerKeyOnly = [apiKeyAuth(gw, { headerOnly: true }), limit];

  const v1 = express.Router();
  route(v1, '/openapi.json', { get: (req, res) => void res.json(openApiDocument(`https://${req.get('host')}/v1`)) });
  // No two routers share a path; the busiest (every incoming chat message) is tried first.
  v1.use(messagesRouter(gw, before));
  v1.use(contactsRouter(gw, before));
  v1.use(listsRouter(gw, before));
  v1.use(importsRouter(gw, before));
  v1.use(campaignsRouter(gw, before));
  v1.use(creditsRouter(gw, before, headerKeyOnly));
  v1.use(settingsRouter(gw, before));
  v1.use(webhooksRouter(gw, before));
  v1.use(conversationsRouter(gw, before));
  v1.use(channelsRouter(gw, before));
  v1.use(providerWebhooksRouter(gw));

  app.use('/v1', v1);
  app.use('/admin/v1', adminRouter(gw, adminToken));
  app.use('/console', consoleRouter(gw));
  app.use(notFoundHandler);
  app.use(errorHandler(gw.log));
  return app;
}
