import express, { type Express, type Router } from 'express';
import type { Engine } from '../engine/ports/providers.js';
import { errorHandler, notFoundHandler } from './errors.js';
import { adminAuth, apiKeyAuth } from './middleware/auth.js';
import { adminOnly } from './middleware/roles.js';
import { AuthFailures } from './middleware/auth-failures.js';
import { httpsOnly } from './middleware/https-only.js';
import { rateLimits } from './middleware/rate-limit.js';
import { readablePath } from './middleware/readable-path.js';
import { requestLog } from './middleware/request-log.js';
import { openApiDocument } from './openapi.js';
import { publicBase } from './public-base.js';
import { strictQuery } from './query.js';
import { appRoutes, route, type Guards } from './route.js';
import { adminRouter } from './routes/admin.js';
import { auditLogRoutes } from './routes/audit-log.js';
import { campaignsRoutes } from './routes/campaigns.js';
import { channelsRoutes } from './routes/channels.js';
import { contactsRoutes } from './routes/contacts.js';
import { conversationsRoutes } from './routes/conversations.js';
import { creditsRoutes } from './routes/credits.js';
import { importsRoutes } from './routes/imports.js';
import { listsRoutes } from './routes/lists.js';
import { membersRoutes } from './routes/members.js';
import { messagesRoutes } from './routes/messages.js';
import { providerWebhooksRoutes } from './routes/provider-webhooks.js';
import { savedRepliesRoutes } from './routes/saved-replies.js';
import { serviceRoutes, type ServiceState } from './routes/service.js';
import { settingsRoutes } from './routes/settings.js';
import { webhooksRoutes } from './routes/webhooks.js';

/** The gateway's HTTP app: the API, the operator's API and, at their paths, the `routers` it is given (the web console). */
export function createApp(
  gw: Engine,
  adminToken: string,
  service: ServiceState,
  routers: Record<string, Router> = {},
): Express {
  const app = express();
  app.disable('x-powered-by');
  // Answers are read once by API clients; hashing every body for an ETag nobody sends back is wasted work.
  app.set('etag', false);
  // One proxy in front: the client's address is the one it appended to X-Forwarded-For, not whatever the client
  // wrote there itself, so per-address limits (failed authentications, sign-ins) cannot be dodged by a header.
  app.set('trust proxy', gw.config.trustProxy ? 1 : false);
  app.set('query parser', strictQuery);
  // Each layer costs every request: those with nothing to do in this configuration are left out. The headers
  // every answer carries are set by the server (startGateway), before the app.
  const failures = new AuthFailures(gw.store);
  app.use(readablePath);
  // The probes tell nothing secret: a balancer may ask over plain HTTP behind a proxy. The metrics need HTTPS.
  const https = gw.config.trustProxy ? [httpsOnly()] : [];
  const operator = [adminAuth(adminToken, failures)];
  const scraper = [...https, adminAuth(adminToken, failures, gw.config.metricsToken ? [gw.config.metricsToken] : [])];
  serviceRoutes(appRoutes(app, '', { public: [], scraper }), gw, service);
  if (https.length) app.use(https);
  if (gw.log.isLevelEnabled('info')) app.use(requestLog(gw.log));

  const limit = rateLimits(gw.store, {
    perKey: gw.config.rateLimitPerMinute,
    perSession: gw.config.consoleRateLimitPerMinute,
  });
  const team = [apiKeyAuth(gw, failures), limit];
  const guards: Guards = { public: [], team, admins: [...team, adminOnly] };

  // The API's paths hang from the app itself, not from routers mounted at /v1: every router level a request
  // passes through costs it a walk of that router's stack. The busiest path (every incoming chat message) is
  // registered first.
  const v1 = appRoutes(app, '/v1', guards);
  messagesRoutes(v1, gw);
  // The server address never comes from the request (see publicBase): a document naming another host would send
  // whoever follows it there with their key.
  let openApi: ReturnType<typeof openApiDocument> | undefined;
  route(v1, '/openapi.json', {
    get: (_req, res) => void res.json((openApi ??= openApiDocument(`${publicBase(gw.config)}/v1`))),
  });
  contactsRoutes(v1, gw);
  listsRoutes(v1, gw);
  importsRoutes(v1, gw);
  campaignsRoutes(v1, gw);
  creditsRoutes(v1, gw);
  settingsRoutes(v1, gw);
  auditLogRoutes(v1, gw);
  webhooksRoutes(v1, gw);
  conversationsRoutes(v1, gw);
  savedRepliesRoutes(v1, gw);
  channelsRoutes(v1, gw);
  membersRoutes(v1, gw);
  providerWebhooksRoutes(v1, gw);

  app.use('/admin/v1', adminRouter(gw, { operator }));
  for (const [path, router] of Object.entries(routers)) app.use(path, router);
  app.use(notFoundHandler);
  app.use(errorHandler(gw.log, gw.store.health));
  return app;
}
