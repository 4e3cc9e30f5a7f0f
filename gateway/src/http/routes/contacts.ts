import type { Gateway } from '../../context.js';
import { auditAlone, contactTarget } from '../../domain/audit-log.js';
import { exportContact } from '../../domain/contact-export.js';
import { editContactIn } from '../../domain/contact-edit.js';
import { createContact } from '../../domain/contact-identity.js';
import { searchContacts, searchQuery } from '../../domain/contact-search.js';
import { getContact, lookupContact, publicContact, type Contact } from '../../domain/contacts.js';
import { conversationAnswer, conversationMessages } from '../../domain/conversations.js';
import { messagesOf, publicMessage } from '../../domain/messages.js';
import { eraseContact } from '../../engine/erase-contact.js';
import { setBot, teamReply } from '../../engine/handoff.js';
import { mergeContacts } from '../../engine/merge-contacts.js';
import { idempotentAnswer } from '../idempotent-answer.js';
import { jsonBody } from '../middleware/json-body.js';
import { readPage } from '../paging.js';
import { accountOf, auditBy, actorOf, bySession, parse, route, sendDurable, type Routes } from '../route.js';
import {
  botState,
  contactCreate,
  contactMessagesQuery,
  contactLookup,
  contactMerge,
  contactUpdate,
  teamMessage,
} from '../schemas.js';
import type { botState as botStateAnswer } from '../../contract/messages.js';
import type { Answer } from '../../contract/shared.js';

export function contactsRoutes(v1: Routes, gw: Gateway): void {
  route(v1, '/contacts', {
    post: [
      jsonBody(),
      async (req, res) => {
        const { contact, created } = await createContact(gw, accountOf(res), parse(contactCreate, req.body));
        res.status(created ? 201 : 200).json(publicContact(contact));
      },
    ],
    get: async (req, res) => {
      const query = parse(contactLookup, req.query, 'query');
      if (query.q !== undefined) {
        const account = accountOf(res);
        const accountId = account.id;
        const search = searchQuery(query.q, account.defaultCountry)!;
        const found = await readPage(
          { gw, req, owner: accountId },
          query,
          (page) => searchContacts<Contact>(gw.store, accountId, search, page),
          (f) => publicContact(f.contact),
        );
        return sendDurable(gw, res, found);
      }
      const contact = await lookupContact(gw, accountOf(res), query);
      await sendDurable(gw, res, publicContact(contact));
    },
  });
  route(v1, '/contacts/:id', {
    get: async (req, res) => {
      const contact = await getContact(gw.store, accountOf(res).id, String(req.params.id));
      await sendDurable(gw, res, publicContact(contact));
    },
    patch: [
      jsonBody(),
      async (req, res) => {
        res.json(
          publicContact(
            await gw.store.transact((tx) =>
              editContactIn(tx, accountOf(res), String(req.params.id), parse(contactUpdate, req.body)),
            ),
          ),
        );
      },
    ],
    delete: async (req, res) => {
      await eraseContact(gw, accountOf(res).id, String(req.params.id), auditBy(res));
      res.status(204).end();
    },
  });
  route(v1, '/contacts/:id/merge', {
    post: [
      jsonBody(),
      async (req, res) => {
        const { contactId } = parse(contactMerge, req.body);
        res.json(
          publicContact(await mergeContacts(gw, accountOf(res).id, String(req.params.id), contactId, auditBy(res))),
        );
      },
    ],
  });
  route(v1, '/contacts/:id/export', {
    get: async (req, res) => {
      const held = await exportContact(gw.store, accountOf(res).id, String(req.params.id));
      await auditAlone(gw.store, auditBy(res), 'contact.exported', contactTarget(held.contact.id));
      // Only on the file: a refusal is no file to save.
      res.set('Content-Disposition', `attachment; filename="contact-${held.contact.id}.json"`);
      await sendDurable(gw, res, held);
    },
  });
  route(v1, '/contacts/:id/messages', {
    get: async (req, res) => {
      const query = parse(contactMessagesQuery, req.query, 'query');
      const accountId = accountOf(res).id;
      const messages = await readPage(
        { gw, req, owner: accountId },
        query,
        (page) => {
          const ordered = { ...page, order: query.order };
          return query.conversationId === undefined
            ? messagesOf(gw.store, accountId, String(req.params.id), ordered)
            : conversationMessages(gw.store, accountId, String(req.params.id), query.conversationId, ordered);
        },
        (m) => publicMessage(m),
      );
      await sendDurable(gw, res, messages);
    },
    // A team member's reply, on the conversation's channel.
    post: [
      jsonBody(),
      async (req, res) => {
        const { body, conversationId, expectedAssigneeId } = parse(teamMessage, req.body);
        const account = accountOf(res);
        // A reply whose answer was lost, sent again with its Idempotency-Key, reaches the contact once.
        const { status, response } = await idempotentAnswer(gw, req, res, account.id, 201, async (keep) =>
          publicMessage(
            await teamReply(gw, account, String(req.params.id), {
              body,
              conversationId,
              expected: expectedAssigneeId,
              by: actorOf(res),
              takes: bySession(res),
              remember: (tx, sent) => keep(tx, publicMessage(sent)),
            }),
          ),
        );
        res.status(status).json(response);
      },
    ],
  });
  route(v1, '/contacts/:id/bot', {
    post: [
      jsonBody(),
      async (req, res) => {
        const { active } = parse(botState, req.body);
        const contactId = String(req.params.id);
        const conversations = await setBot(gw, accountOf(res), contactId, active);
        const contact = await getContact(gw.store, accountOf(res).id, contactId);
        res.json({
          success: true,
          contactId,
          active,
          conversations: await Promise.all(conversations.map((c) => conversationAnswer(gw.store, c, contact))),
        } satisfies Answer<typeof botStateAnswer>);
      },
    ],
  });
}
