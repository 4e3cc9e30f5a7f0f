import { Router, type RequestHandler } from 'express';
import type { Gateway } from '../../context.js';
import { campaignsOf, createCampaign, getCampaign, publicCampaign, updateCampaign } from '../../domain/campaigns.js';
import { jsonBody } from '../middleware/json-body.js';
import { accountOf, parse, route, sendDurable } from '../route.js';
import { campaignCreate, campaignUpdate } from '../schemas.js';

export function campaignsRouter(gw: Gateway, before: RequestHandler[]): Router {
  const router = Router();
  route(router, '/campaigns', {
    post: [jsonBody(), async (req, res) => {
      res.status(201).json(publicCampaign(await createCampaign(gw, accountOf(res).id, parse(campaignCreate, req.body))));
    }],
    get: async (_req, res) => {
      const campaigns = await campaignsOf(gw.store, accountOf(res).id);
      await sendDurable(gw, res, { data: campaigns.map(publicCampaign) });
    },
  }, before);
  route(router, '/campaigns/:id', {
    get: async (req, res) => {
      const campaign = await getCampaign(gw.store, accountOf(res).id, String(req.params.id));
      await sendDurable(gw, res, publicCampaign(campaign));
    },
    patch: [jsonBody(), async (req, res) => {
      const campaign = await updateCampaign(gw, accountOf(res).id, String(req.params.id), parse(campaignUpdate, req.body));
      res.json(publicCampaign(campaign));
    }],
  }, before);
  return router;
}
