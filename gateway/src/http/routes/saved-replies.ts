import type { Gateway } from '../../context.js';
import {
  createSavedReply,
  deleteSavedReply,
  getSavedReply,
  publicSavedReply,
  renderSavedReply,
  savedRepliesOf,
  updateSavedReply,
} from '../../domain/saved-replies.js';
import { idempotentAnswer } from '../idempotent-answer.js';
import { jsonBody } from '../middleware/json-body.js';
import { readPage } from '../paging.js';
import { accountOf, actorOf, bySession, parse, route, sendDurable, type Routes } from '../route.js';
import { savedReplyCreate, savedReplyQuery, savedReplyRender, savedReplyUpdate } from '../schemas.js';

/** The team's saved replies, sorted by name, shared by the whole account (domain/saved-replies.ts). */
export function savedRepliesRoutes(v1: Routes, gw: Gateway): void {
  route(v1, '/saved-replies', {
    post: [
      jsonBody(),
      async (req, res) => {
        const body = parse(savedReplyCreate, req.body);
        const fields = { name: body.name.trim(), text: body.text.trim() };
        const accountId = accountOf(res).id;
        // Signed by the member who saved it; a workflow with the API key is nobody of the team.
        const author = bySession(res) ? actorOf(res) : null;
        // A saved reply whose answer was lost, saved again with its Idempotency-Key, is saved once: no 409 for its
        // own name.
        const { status, response } = await idempotentAnswer(gw, req, res, accountId, 201, async (keep) =>
          publicSavedReply(
            await createSavedReply(gw, accountId, fields, author, (tx, made) => keep(tx, publicSavedReply(made))),
          ),
        );
        res.status(status).json(response);
      },
    ],
    get: async (req, res) => {
      const query = parse(savedReplyQuery, req.query, 'query');
      const accountId = accountOf(res).id;
      await sendDurable(
        gw,
        res,
        await readPage(
          { gw, req, owner: accountId },
          query,
          (page) => savedRepliesOf(gw.store, accountId, query.q, page),
          publicSavedReply,
        ),
      );
    },
  });
  route(v1, '/saved-replies/:id', {
    get: async (req, res) => {
      const { conversationId } = parse(savedReplyRender, req.query, 'query');
      const accountId = accountOf(res).id;
      const id = String(req.params.id);
      await sendDurable(
        gw,
        res,
        conversationId === undefined
          ? publicSavedReply(await getSavedReply(gw.store, accountId, id))
          : await renderSavedReply(gw.store, accountId, id, conversationId),
      );
    },
    patch: [
      jsonBody(),
      async (req, res) => {
        const body = parse(savedReplyUpdate, req.body);
        const fields = { name: body.name?.trim(), text: body.text?.trim() };
        const accountId = accountOf(res).id;
        res.json(publicSavedReply(await updateSavedReply(gw, accountId, String(req.params.id), fields, actorOf(res))));
      },
    ],
    delete: async (req, res) => {
      await deleteSavedReply(gw, accountOf(res).id, String(req.params.id), actorOf(res));
      res.status(204).end();
    },
  });
}
