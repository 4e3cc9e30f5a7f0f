import type { Gateway } from '../../context.js';
import { assignConversation } from '../../domain/assignment.js';
import { conversationAnswer, conversationsOf, getConversation, type Conversation } from '../../domain/conversations.js';
import { getMember } from '../../domain/members.js';
import { addNote, deleteNote, notesOf, publicNote } from '../../domain/notes.js';
import { markRead } from '../../domain/read-state.js';
import { retryFailed } from '../../engine/retry.js';
import { accountPage, readPage } from '../paging.js';
import { idempotentAnswer } from '../idempotent-answer.js';
import { jsonBody } from '../middleware/json-body.js';
import { accountOf, actorOf, bySession, parse, route, sendDurable, type Routes } from '../route.js';
import { snoozeConversation, wakeConversation } from '../../domain/snoozes.js';
import { addLabels, labelsOf, removeLabel } from '../../domain/conversation-labels.js';
import { assignment, conversationQuery, labelParam, labelsAdd, noteCreate, snooze } from '../schemas.js';

/** Conversations, newest activity first (the inbox). */
export function conversationsRoutes(v1: Routes, gw: Gateway): void {
  const withContact = (c: Conversation) => conversationAnswer(gw.store, c);
  route(v1, '/conversations', {
    get: async (req, res) => {
      const query = parse(conversationQuery, req.query, 'query');
      const { limit: _limit, cursor: _cursor, ...filters } = query;
      if (filters.assigneeId === 'me') filters.assigneeId = actorOf(res).id;
      // A member the account does not have is answered as the member's own URL would be (404 MEMBER_NOT_FOUND).
      else if (filters.assigneeId && filters.assigneeId !== 'none')
        await getMember(gw.store, accountOf(res), filters.assigneeId);
      const accountId = accountOf(res).id;
      const page = await readPage(
        { gw, req, owner: accountId },
        query,
        (p) => conversationsOf(gw.store, accountId, filters, p),
        (placed) => placed.doc,
      );
      await sendDurable(gw, res, { data: await Promise.all(page.data.map(withContact)), nextCursor: page.nextCursor });
    },
  });
  // Before /conversations/:id, which would take this path for one conversation's.
  route(v1, '/conversations/retry-failed', {
    post: async (_req, res) => {
      res.json(await retryFailed(gw, accountOf(res).id));
    },
  });
  route(v1, '/conversations/:id/retry-failed', {
    post: async (req, res) => {
      res.json(await retryFailed(gw, accountOf(res).id, String(req.params.id)));
    },
  });
  route(v1, '/conversations/:id', {
    get: async (req, res) => {
      const conversation = await getConversation(gw.store, accountOf(res).id, String(req.params.id));
      await sendDurable(gw, res, await withContact(conversation));
    },
  });
  route(v1, '/conversations/:id/assign', {
    post: [
      jsonBody(),
      async (req, res) => {
        const { memberId, expectedAssigneeId } = parse(assignment, req.body);
        res.json(
          await withContact(
            await assignConversation(gw, accountOf(res), actorOf(res), String(req.params.id), memberId, {
              expected: expectedAssigneeId,
            }),
          ),
        );
      },
    ],
  });
  route(v1, '/conversations/:id/snooze', {
    post: [
      jsonBody(),
      async (req, res) => {
        const { until } = parse(snooze, req.body);
        res.json(await withContact(await snoozeConversation(gw, accountOf(res).id, String(req.params.id), until)));
      },
    ],
    delete: async (req, res) => {
      res.json(await withContact(await wakeConversation(gw, accountOf(res).id, String(req.params.id))));
    },
  });
  route(v1, '/conversations/:id/labels', {
    post: [
      jsonBody(),
      async (req, res) => {
        const { labels } = parse(labelsAdd, req.body);
        res.json(await withContact(await addLabels(gw, accountOf(res).id, String(req.params.id), labels)));
      },
    ],
  });
  route(v1, '/conversations/:id/labels/:label', {
    delete: async (req, res) => {
      const { label } = parse(labelParam, req.params, 'path');
      res.json(await withContact(await removeLabel(gw, accountOf(res).id, String(req.params.id), label)));
    },
  });
  // The account's labels in use, for pickers: a label no conversation carries any more is gone from here.
  route(v1, '/labels', {
    get: async (_req, res) => {
      await sendDurable(gw, res, { data: await labelsOf(gw.store, accountOf(res).id) });
    },
  });
  route(v1, '/conversations/:id/read', {
    post: async (req, res) => {
      res.json(await withContact(await markRead(gw, accountOf(res).id, String(req.params.id))));
    },
  });
  route(v1, '/conversations/:id/notes', {
    post: [
      jsonBody(),
      async (req, res) => {
        const text = parse(noteCreate, req.body).text.trim();
        const accountId = accountOf(res).id;
        // Signed by the member who wrote it; a workflow with the API key is nobody of the team.
        const author = bySession(res) ? actorOf(res) : null;
        // A note whose answer was lost, added again with its Idempotency-Key, is added once.
        const { status, response } = await idempotentAnswer(gw, req, res, accountId, 201, async (keep) =>
          publicNote(
            await addNote(gw, accountId, String(req.params.id), text, author, (tx, made) => keep(tx, publicNote(made))),
          ),
        );
        res.status(status).json(response);
      },
    ],
    get: accountPage(
      gw,
      (account, req, page) => notesOf(gw.store, account.id, String(req.params.id), page),
      publicNote,
    ),
  });
  route(v1, '/conversations/:id/notes/:noteId', {
    delete: async (req, res) => {
      await deleteNote(gw, accountOf(res).id, String(req.params.id), String(req.params.noteId), actorOf(res));
      res.status(204).end();
    },
  });
}
