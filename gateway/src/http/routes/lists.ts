import type { Gateway } from '../../context.js';
import { auditAlone, listTarget } from '../../domain/audit-log.js';
import { publicContact } from '../../domain/contacts.js';
import { createList, getList, listsOf, membersOf, publicList, renameList } from '../../domain/lists.js';
import { deleteList } from '../../domain/list-deletion.js';
import { addToList, removeFromList } from '../../engine/join-list.js';
import { jsonBody } from '../middleware/json-body.js';
import { accountPage, readPage } from '../paging.js';
import { idempotentAnswer } from '../idempotent-answer.js';
import { accountOf, auditBy, parse, route, sendDurable, type Routes } from '../route.js';
import { listAdd, listCreate, listUpdate, namedQuery } from '../schemas.js';
import { findByName } from '../../domain/name-search.js';
import { sendListCsv } from '../list-csv.js';
import type { Page } from '../../store/store.js';

export function listsRoutes(v1: Routes, gw: Gateway): void {
  route(v1, '/lists', {
    post: [
      jsonBody(),
      async (req, res) => {
        const name = parse(listCreate, req.body).name.trim();
        const accountId = accountOf(res).id;
        // A list whose answer was lost, made again with its Idempotency-Key, is made once: no empty twin to pick from.
        const { status, response } = await idempotentAnswer(gw, req, res, accountId, 201, async (keep) =>
          publicList(await createList(gw, accountId, name, (tx, made) => keep(tx, publicList(made)))),
        );
        res.status(status).json(response);
      },
    ],
    get: async (req, res) => {
      const query = parse(namedQuery, req.query, 'query');
      const accountId = accountOf(res).id;
      const read = (page?: Page) => listsOf(gw.store, accountId, page);
      await sendDurable(
        gw,
        res,
        await readPage({ gw, req, owner: accountId }, query, (page) => findByName(read, query.q, page), publicList),
      );
    },
  });
  route(v1, '/lists/:listId', {
    get: async (req, res) => {
      await sendDurable(gw, res, publicList(await getList(gw.store, accountOf(res).id, String(req.params.listId))));
    },
    patch: [
      jsonBody(),
      async (req, res) => {
        const name = parse(listUpdate, req.body).name.trim();
        res.json(publicList(await renameList(gw, accountOf(res).id, String(req.params.listId), name)));
      },
    ],
    delete: async (req, res) => {
      await deleteList(gw, accountOf(res).id, String(req.params.listId), auditBy(res));
      res.status(204).end();
    },
  });
  route(v1, '/lists/:listId/contacts', {
    post: [
      jsonBody(),
      async (req, res) => {
        const { contactId, delay } = parse(listAdd, req.body);
        const listId = String(req.params.listId);
        const { added } = await addToList(gw, accountOf(res).id, listId, contactId!, { delay });
        res.status(added ? 201 : 200).json({ success: true, listId, contactId, added });
      },
    ],
    get: accountPage(
      gw,
      (account, req, page) => membersOf(gw.store, account.id, String(req.params.listId), page),
      (m) => ({ ...publicContact(m.contact), addedAt: m.doc.addedAt }),
    ),
  });
  route(v1, '/lists/:listId/export', {
    get: async (req, res) => {
      const list = await getList(gw.store, accountOf(res).id, String(req.params.listId));
      // Recorded as it starts: what was sent of it before a client went away has left all the same.
      await auditAlone(gw.store, auditBy(res), 'list.exported', listTarget(list));
      await sendListCsv(gw, res, list);
    },
  });
  route(v1, '/lists/:listId/contacts/:contactId', {
    delete: async (req, res) => {
      await removeFromList(gw, accountOf(res).id, String(req.params.listId), String(req.params.contactId));
      res.status(204).end();
    },
  });
}
