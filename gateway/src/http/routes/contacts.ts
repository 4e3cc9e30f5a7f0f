import { Router } from 'express';
import type { Gateway } from '../../context.js';
import { createContact, getContact, lookupContact, publicContact } from '../../domain/contacts.js';
import { messagesOf, publicMessage } from '../../domain/messages.js';
import { jsonBody } from '../middleware/json-body.js';
import { accountOf, parse, route, sendDurable } from '../route.js';
import { contactCreate, contactLookup } from '../schemas.js';
import type { RequestHandler } from 'express';

export function contactsRouter(gw: Gateway, before: RequestHandler[]): Router {
  const router = Router();
  route(router, '/contacts', {
    post: [jsonBody(), async (req, res) => {
      const { contact, created } = await createContact(gw, accountOf(res).id, parse(contactCreate, req.body));
      res.status(created ? 201 : 200).json(publicContact(contact));
    }],
    get: async (req, res) => {
      const contact = await lookupContact(gw, accountOf(res).id, parse(contactLookup, req.query, 'query'));
      await sendDurable(gw, res, publicContact(contact));
    },
  }, before);
  route(router, '/contacts/:id', {
    get: async (req, res) => {
      const contact = await getContact(gw.store, accountOf(res).id, String(req.params.id));
      await sendDurable(gw, res, publicContact(contact));
    },
  }, before);
  route(router, '/contacts/:id/messages', {
    get: async (req, res) => {
      const messages = await messagesOf(gw.store, accountOf(res).id, String(req.params.id));
      await sendDurable(gw, res, { data: messages.map((m) => publicMessage(m)) });
    },
  }, before);
  return router;
}
