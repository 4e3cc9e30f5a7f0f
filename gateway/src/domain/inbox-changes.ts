import type { Change, Json, Tx } from '../store/store.js';

/**
 * What the inbox hears of a transaction, conversation by conversation: the messages it added and the statuses they
 * reached, the team's notes added and deleted, who has the conversation, how it stands, and its snooze running out.
 * Published once per conversation per transaction (a conversation written five times by one incoming message is told
 * once, as it ends up), and only when something the inbox shows changed: the engine's own bookkeeping (a follow-up
 * scheduled) tells nothing. Ids and short words only: whoever is told reads the rest through /v1, under the rules of
 * its role.
 */

/** What the inbox shows of a conversation, as conversations.ts reads it from one. */
export interface ShownConversation {
  id: string;
  accountId: string;
  status: string;
  needsReply: boolean;
  unread: number;
  botActive: boolean;
  failed: number;
  assigneeId: string | null;
  /** The rest the inbox shows that changes (its latest message, the hand-off, the goal, its contact): compared only. */
  rest: string;
}

/** A message as its conversation's lastMessage describes it. */
export interface ShownMessage {
  id: string;
  direction: string;
  author?: string | null;
}

interface Pending {
  accountId: string;
  /** As the transaction first wrote it: null when it created it, undefined when it wrote none of it. */
  before: ShownConversation | null | undefined;
  after: ShownConversation | undefined;
  created: Array<[string, string, string | null]>;
  statuses: Map<string, string>;
  /** The team's notes added or deleted (domain/notes.ts), each as [id, 'created' | 'deleted']. */
  notes: Array<[string, 'created' | 'deleted']>;
  told: boolean;
  /** Gone in this transaction: told as removed, whatever was written of it before. */
  removed: boolean;
  /** What the inbox shows of it changed beyond its own fields (its contact's name): its state is told. */
  touched: boolean;
  /** Its snooze ran out: who has it (null: nobody) is told that it is back. */
  woke?: string | null;
}

const pendingOf = new WeakMap<Tx, Map<string, Pending>>();

function pending(tx: Tx, accountId: string, conversationId: string): Pending {
  let conversations = pendingOf.get(tx);
  if (!conversations) pendingOf.set(tx, (conversations = new Map()));
  let found = conversations.get(conversationId);
  if (!found)
    conversations.set(
      conversationId,
      (found = {
        accountId,
        before: undefined,
        after: undefined,
        created: [],
        statuses: new Map(),
        notes: [],
        told: false,
        removed: false,
        touched: false,
      }),
    );
  return found;
}

/** A conversation was written: `before` as the transaction had it (null: it is new), `after` as written. */
export function conversationWritten(tx: Tx, before: ShownConversation | null, after: ShownConversation): void {
  const p = pending(tx, after.accountId, after.id);
  if (p.before === undefined) p.before = before;
  p.after = after;
  publish(tx, after.id, p);
}

/** A message was added to the conversation (it is its latest message now). */
export function messageAdded(tx: Tx, accountId: string, conversationId: string, message: ShownMessage): void {
  const p = pending(tx, accountId, conversationId);
  if (p.created.some(([id]) => id === message.id)) return;
  p.created.push([message.id, message.direction, message.author ?? null]);
  publish(tx, conversationId, p);
}

/** An outgoing message of the conversation reached `status` (sent, delivered, read, failed…). */
export function messageStatusChanged(
  tx: Tx,
  accountId: string,
  conversationId: string,
  messageId: string,
  status: string,
): void {
  const p = pending(tx, accountId, conversationId);
  p.statuses.set(messageId, status);
  publish(tx, conversationId, p);
}

/**
 * A note of the team's was added to the conversation or deleted from it: whoever shows the conversation reads its
 * notes again. The conversation itself is unchanged: nothing of how it stands is told.
 */
export function noteChanged(
  tx: Tx,
  accountId: string,
  conversationId: string,
  noteId: string,
  change: 'created' | 'deleted',
): void {
  const p = pending(tx, accountId, conversationId);
  p.notes.push([noteId, change]);
  publish(tx, conversationId, p);
}

/**
 * A snoozed conversation's time came: it is back, and `assigneeId` is told (every member when null: nobody has it, or
 * whoever has it is away), as of a contact nobody answered in time. A snooze ended by the contact writing is told by
 * their message; by a member's hand, to nobody.
 */
export function conversationWoke(tx: Tx, accountId: string, conversationId: string, assigneeId: string | null): void {
  const p = pending(tx, accountId, conversationId);
  p.woke = assigneeId;
  publish(tx, conversationId, p);
}

/** Its contact was corrected (a name, a phone, an email): whoever shows the conversation reads it again. */
export function conversationContactCorrected(tx: Tx, shown: ShownConversation): void {
  const p = pending(tx, shown.accountId, shown.id);
  if (p.before === undefined) p.before = shown;
  p.after ??= shown;
  p.touched = true;
  publish(tx, shown.id, p);
}

/**
 * The conversation is gone (its contact erased, or folded into another by a merge): whoever shows it lets it go. It
 * takes the place of anything this transaction told of it before.
 */
export function conversationRemoved(tx: Tx, accountId: string, conversationId: string): void {
  const p = pending(tx, accountId, conversationId);
  p.removed = true;
  tx.publish(accountId, { kind: 'conversation', conversationId, removed: true }, conversationId);
}

const STATE_FIELDS = ['status', 'needsReply', 'unread', 'botActive', 'failed', 'rest'] as const;

function publish(tx: Tx, conversationId: string, p: Pending): void {
  if (p.removed) return;
  const change: Record<string, Json> = { kind: 'conversation', conversationId };
  const created = new Set(p.created.map(([id]) => id));
  if (p.created.length > 0) change.created = p.created;
  // A message added in this transaction is read whole by whoever hears of it: its status needs no telling.
  const updated = [...p.statuses].filter(([id]) => !created.has(id));
  if (updated.length > 0) change.updated = updated;
  if (p.notes.length > 0) change.notes = p.notes;
  if (p.woke !== undefined) change.woke = { assigneeId: p.woke };
  const { before, after } = p;
  if (after) {
    if (before ? before.assigneeId !== after.assigneeId : before === null && after.assigneeId !== null)
      change.assigneeId = after.assigneeId;
    if (!before || p.touched || STATE_FIELDS.some((field) => before[field] !== after[field])) {
      change.state = {
        status: after.status,
        needsReply: after.needsReply,
        unread: after.unread,
        botActive: after.botActive,
        failed: after.failed,
      };
    }
  }
  // Nothing the inbox shows changed: nothing to tell, unless an earlier write of this transaction told something.
  if (!p.told && Object.keys(change).length === 2) return;
  p.told = true;
  tx.publish(p.accountId, change, conversationId);
}

/** One event of the console's stream: its name and data. */
export interface InboxEvent {
  event:
    | 'message.created'
    | 'message.updated'
    | 'note.created'
    | 'note.deleted'
    | 'conversation.assigned'
    | 'conversation.updated'
    | 'conversation.woke'
    | 'conversation.removed';
  data: Record<string, Json>;
}

/**
 * The events a published change stands for, in the order a reader wants them: the new messages, the statuses of older
 * ones, the notes added and deleted, the assignment, then how the conversation stands; or that it is gone. Nothing for
 * a change of another kind.
 */
export function inboxEvents(change: Change): InboxEvent[] {
  if (change.kind !== 'conversation' || typeof change.conversationId !== 'string') return [];
  const conversationId = change.conversationId;
  if (change.removed === true) return [{ event: 'conversation.removed', data: { conversationId } }];
  const events: InboxEvent[] = [];
  for (const [messageId, direction, author] of (change.created ?? []) as Array<[string, string, string | null]>) {
    events.push({ event: 'message.created', data: { conversationId, messageId, direction, author } });
  }
  for (const [messageId, status] of (change.updated ?? []) as Array<[string, string]>) {
    events.push({ event: 'message.updated', data: { conversationId, messageId, status } });
  }
  for (const [noteId, what] of (change.notes ?? []) as Array<[string, 'created' | 'deleted']>) {
    events.push({ event: `note.${what}`, data: { conversationId, noteId } });
  }
  if ('assigneeId' in change)
    events.push({ event: 'conversation.assigned', data: { conversationId, assigneeId: change.assigneeId ?? null } });
  if (change.state && typeof change.state === 'object')
    events.push({ event: 'conversation.updated', data: { conversationId, ...(change.state as Record<string, Json>) } });
  if (change.woke && typeof change.woke === 'object')
    events.push({ event: 'conversation.woke', data: { conversationId, ...(change.woke as Record<string, Json>) } });
  return events;
}
