import type { Engine } from '../../engine/ports/providers.js';
import { publicUnreachable, unreachableContacts, unreachableOf } from '../../domain/reach.js';
import { campaignsOf, createCampaign, getCampaign, publicCampaign, type Campaign } from '../../domain/campaigns.js';
import { updateCampaign } from '../../engine/campaign-edits.js';
import { previewOpening } from '../../domain/preview.js';
import { funnelOf } from '../../domain/funnel-report.js';
import { unansweredOf } from '../../domain/unanswered.js';
import { testBot } from '../../engine/bot-test.js';
import { reachExisting } from '../../engine/openings.js';
import { retryFailedOpenings } from '../../engine/retry.js';
import { openingsReport, quoteOpening } from '../../domain/campaign-openings.js';
import { jsonBody } from '../middleware/json-body.js';
import { readPage } from '../paging.js';
import { idempotentAnswer } from '../idempotent-answer.js';
import { ifMatchOf, sendETag } from '../preconditions.js';
import { accountOf, auditBy, parse, route, sendDurable, type Routes } from '../route.js';
import {
  botTest,
  campaignCreate,
  campaignPreview,
  campaignUpdate,
  funnelQuery,
  campaignListQuery,
  openingPriceQuote,
  unansweredQuery,
  unreachableQuery,
} from '../schemas.js';
import { findWhere, nameHolds } from '../../domain/name-search.js';
import type { Page } from '../../store/store.js';
import type { campaignWithReach } from '../../contract/campaigns.js';
import type { Answer } from '../../contract/shared.js';

/** Campaigns: everyone of the team reads them and tries their bot; admins and the owner change them. */
export function campaignsRoutes(v1: Routes, gw: Engine): void {
  route(v1, '/campaigns', {
    post: [
      jsonBody(),
      async (req, res) => {
        const input = parse(campaignCreate, req.body);
        const accountId = accountOf(res).id;
        // A creation whose answer was lost, sent again with its Idempotency-Key, makes one campaign, not a second
        // that would message the list's contacts again.
        type Created = ReturnType<typeof publicCampaign>;
        const { status, response } = await idempotentAnswer<Created>(gw, req, res, accountId, 201, async (keep) =>
          publicCampaign(
            await createCampaign(gw, accountId, input, (tx, made) => keep(tx, publicCampaign(made)), auditBy(res)),
          ),
        );
        sendETag(res, response.version);
        res.status(status).json(response);
      },
    ],
    // Archived campaigns are done with: listed only when asked for by their status.
    get: async (req, res) => {
      const query = parse(campaignListQuery, req.query, 'query');
      const accountId = accountOf(res).id;
      const read = (page?: Page) => campaignsOf(gw.store, accountId, page);
      const keep = (c: Campaign) =>
        (query.status ? c.status === query.status : c.status !== 'archived') &&
        (query.q === undefined || nameHolds(c.name, query.q));
      await sendDurable(
        gw,
        res,
        await readPage({ gw, req, owner: accountId }, query, (page) => findWhere(read, keep, page), publicCampaign),
      );
    },
  });
  route(v1, '/campaigns/opening-price', {
    post: [
      jsonBody(),
      async (req, res) => {
        res.json(await quoteOpening(gw.store, accountOf(res).id, parse(openingPriceQuote, req.body), gw.config.prices));
      },
    ],
  });
  route(v1, '/campaigns/:id', {
    get: async (req, res) => {
      const campaign = await getCampaign(gw.store, accountOf(res).id, String(req.params.id));
      sendETag(res, campaign.version);
      await sendDurable(gw, res, {
        ...publicCampaign(campaign),
        unreachable: await unreachableOf(gw.store, campaign.id),
      } satisfies Answer<typeof campaignWithReach>);
    },
    patch: [
      jsonBody(),
      async (req, res) => {
        const precondition = ifMatchOf(req, 'campaign');
        const campaign = await updateCampaign(
          gw,
          accountOf(res).id,
          String(req.params.id),
          parse(campaignUpdate, req.body),
          precondition,
          auditBy(res),
        );
        sendETag(res, campaign.version);
        res.json(publicCampaign(campaign));
      },
    ],
  });
  route(v1, '/campaigns/:id/reach-existing', {
    post: async (req, res) => {
      res.status(202).json(await reachExisting(gw, accountOf(res).id, String(req.params.id)));
    },
  });
  route(v1, '/campaigns/:id/openings', {
    get: async (req, res) => {
      await sendDurable(
        gw,
        res,
        await openingsReport(gw.store, accountOf(res).id, String(req.params.id), gw.config.prices),
      );
    },
  });
  route(v1, '/campaigns/:id/openings/retry-failed', {
    post: async (req, res) => {
      res.json(await retryFailedOpenings(gw, accountOf(res).id, String(req.params.id)));
    },
  });
  route(v1, '/campaigns/:id/bot/test', {
    post: [
      jsonBody(),
      async (req, res) => {
        const question = parse(botTest, req.body);
        res.json(await testBot(gw, accountOf(res).id, String(req.params.id), question));
      },
    ],
  });
  route(v1, '/campaigns/:id/preview', {
    get: async (req, res) => {
      const { contactId } = parse(campaignPreview, req.query, 'query');
      await sendDurable(gw, res, await previewOpening(gw.store, accountOf(res).id, String(req.params.id), contactId));
    },
  });
  route(v1, '/campaigns/:id/unanswered', {
    get: async (req, res) => {
      const { limit } = parse(unansweredQuery, req.query, 'query');
      await sendDurable(gw, res, await unansweredOf(gw.store, accountOf(res).id, String(req.params.id), limit));
    },
  });
  route(v1, '/campaigns/:id/unreachable', {
    get: async (req, res) => {
      const query = parse(unreachableQuery, req.query, 'query');
      const accountId = accountOf(res).id;
      const read = (page: { limit: number; after?: string | number }) =>
        unreachableContacts(gw.store, accountId, String(req.params.id), query.reason, page);
      await sendDurable(gw, res, await readPage({ gw, req, owner: accountId }, query, read, publicUnreachable));
    },
  });
  route(v1, '/campaigns/:id/funnel', {
    get: async (req, res) => {
      const query = parse(funnelQuery, req.query, 'query');
      await sendDurable(gw, res, await funnelOf(gw.store, accountOf(res).id, String(req.params.id), query));
    },
  });
}
