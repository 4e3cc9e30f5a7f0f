import { canAct, MAX_SAVED_REPLIES } from '../api-contract.js';
import type { Gateway } from '../context.js';
import { ApiError, forbidden, notFound } from '../errors.js';
import { newId, now } from '../ids.js';
import type { Page, Reader, Tx } from '../store/store.js';
import type { renderedSavedReply, savedReply } from '../contract/saved-replies.js';
import type { Answer } from '../contract/shared.js';
import type { Contact } from './contacts.js';
import { getConversation } from './conversations.js';
import type { Actor } from './members.js';
import { nameHolds } from './name-search.js';
import { checkTemplate, personalize } from './personalize.js';

/**
 * A reply the team saved ("Our prices are on …") to put in a conversation's reply box in a couple of keystrokes,
 * shared by the account's whole team. It may hold the placeholders of a campaign's messages, filled in for the
 * conversation's contact when it is put in the box (renderSavedReply): the team reads what the contact would get,
 * edits it and sends it as any reply. Nothing sends one by itself.
 */
export interface SavedReply {
  id: string;
  accountId: string;
  name: string;
  /** The name as the account's uniqueness rule sees it (nameKey): "Prices" and "prices " are one name. */
  nameKey: string;
  text: string;
  /** The member who saved it (the owner's member id for the owner's sign-in); null for the API key. */
  authorId: string | null;
  /** Their name as it was when they saved it: a saved reply keeps its signature after its writer leaves the team. */
  authorName: string | null;
  createdAt: string;
  updatedAt: string;
}

export const publicSavedReply = (s: SavedReply): Answer<typeof savedReply> => ({
  id: s.id,
  name: s.name,
  text: s.text,
  authorId: s.authorId,
  authorName: s.authorName,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
});

/** The one key of names that differ only in case or in the spaces between their words. */
const nameKey = (name: string) => name.normalize('NFC').toLowerCase().replace(/\s+/g, ' ');

const nameTaken = (name: string) =>
  new ApiError(409, 'SAVED_REPLY_NAME_TAKEN', `A saved reply of this account is named "${name}" already`);

/** The same name, case aside, once per account: checked here, and held by the unique index against a race. */
async function checkNameFree(tx: Tx, accountId: string, name: string, self?: string): Promise<string> {
  const key = nameKey(name);
  const [holder] = await tx.find<SavedReply>('saved_replies', 'name', [accountId, key]);
  if (holder && holder.id !== self) throw nameTaken(holder.name);
  return key;
}

export async function getSavedReply(r: Reader, accountId: string, id: string): Promise<SavedReply> {
  const found = await r.get<SavedReply>('saved_replies', id);
  if (!found || found.accountId !== accountId) throw notFound('Saved reply');
  return found;
}

/**
 * POST /v1/saved-replies: the saved reply, by `author` (null: the API key). `name` and `text` come trimmed; a text
 * naming a field no contact has ({{frist_name}}) is refused as a campaign's message is. `remember` keeps the answer
 * in the creation's own transaction, for an Idempotency-Key to replay (idempotency.ts).
 */
export async function createSavedReply(
  gw: Gateway,
  accountId: string,
  fields: { name: string; text: string },
  author: Actor | null,
  remember?: (tx: Tx, made: SavedReply) => Promise<void>,
): Promise<SavedReply> {
  checkTemplate(fields.text, 'text');
  return gw.store.transact(async (tx) => {
    // Two saved at once take turns, so that both count the other.
    await tx.lock('accounts', accountId);
    const key = await checkNameFree(tx, accountId, fields.name);
    if ((await tx.find('saved_replies', 'account', [accountId])).length >= MAX_SAVED_REPLIES)
      throw new ApiError(
        409,
        'TOO_MANY_SAVED_REPLIES',
        `An account keeps at most ${MAX_SAVED_REPLIES} saved replies: delete one the team no longer uses first`,
      );
    const at = now();
    const made = await tx.insert<SavedReply>('saved_replies', {
      id: newId('svr'),
      accountId,
      name: fields.name,
      nameKey: key,
      text: fields.text,
      authorId: author?.id ?? null,
      authorName: author?.name ?? null,
      createdAt: at,
      updatedAt: at,
    });
    await remember?.(tx, made);
    return made;
  });
}

/** Who may change or delete a saved reply: its author, and the owner and admins (the API key acts as the owner). */
const mayChange = (actor: Actor, s: SavedReply) => canAct(actor.role, 'admin') || s.authorId === actor.id;

function checkMayChange(actor: Actor, s: SavedReply, doing: 'changes' | 'deletes'): void {
  if (!mayChange(actor, s))
    throw forbidden(
      'FORBIDDEN',
      `Only ${s.authorName ?? 'its author'}, an admin or the account's owner ${doing} this saved reply; your role is ${actor.role}`,
    );
}

/** PATCH /v1/saved-replies/{id}: a new name, a new text, or both, each held to the rules of a new one. */
export async function updateSavedReply(
  gw: Gateway,
  accountId: string,
  id: string,
  fields: { name?: string; text?: string },
  actor: Actor,
): Promise<SavedReply> {
  if (fields.text !== undefined) checkTemplate(fields.text, 'text');
  return gw.store.transact(async (tx) => {
    const found = await getSavedReply(tx, accountId, id);
    checkMayChange(actor, found, 'changes');
    const patch: Partial<SavedReply> = { updatedAt: now() };
    if (fields.name !== undefined) {
      patch.name = fields.name;
      patch.nameKey = await checkNameFree(tx, accountId, fields.name, found.id);
    }
    if (fields.text !== undefined) patch.text = fields.text;
    return tx.update<SavedReply>('saved_replies', found.id, patch);
  });
}

/** DELETE /v1/saved-replies/{id}: 403 for an agent's saved reply of another author. */
export async function deleteSavedReply(gw: Gateway, accountId: string, id: string, actor: Actor): Promise<void> {
  await gw.store.transact(async (tx) => {
    const found = await getSavedReply(tx, accountId, id);
    checkMayChange(actor, found, 'deletes');
    await tx.remove('saved_replies', found.id);
  });
}

/** The order of a team's picker: by name as a reader sorts words ("Step 2" before "Step 10"), case aside. */
const byName = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
const inOrder = (a: SavedReply, b: SavedReply) =>
  byName.compare(a.name, b.name) || (a.id === b.id ? 0 : a.id < b.id ? -1 : 1);

/**
 * GET /v1/saved-replies: the account's saved replies sorted by name, those whose name or text holds `q` (case and
 * accents aside) when it is given; `page.after` the id of the last one shown. An account keeps at most
 * MAX_SAVED_REPLIES of them, so they are read whole and sorted here: the store keeps them in the order they were
 * saved. The page goes on after where the one it ended on is now, renamed or not. Its cursor holds an id alone: one
 * deleted meanwhile leaves no place to go on from, and the walk ends there (a rare race: the console reads them all
 * at once).
 */
export async function savedRepliesOf(
  r: Reader,
  accountId: string,
  q: string | undefined,
  page: Page = {},
): Promise<SavedReply[]> {
  const all = (await r.find<SavedReply>('saved_replies', 'account', [accountId])).sort(inOrder);
  const found = q === undefined ? all : all.filter((s) => nameHolds(s.name, q) || nameHolds(s.text, q));
  let from = 0;
  if (page.after !== undefined) {
    const last = typeof page.after === 'string' ? await r.get<SavedReply>('saved_replies', page.after) : undefined;
    const at = last && last.accountId === accountId ? last : undefined;
    from = at ? found.findIndex((s) => inOrder(s, at) > 0) : found.length;
    if (from < 0) from = found.length;
  }
  return found.slice(from, page.limit === undefined ? undefined : from + page.limit);
}

/**
 * GET /v1/saved-replies/{id}?conversationId=: the saved reply with its text filled in for the conversation's contact,
 * by the rules of a campaign's messages (personalize.ts): what the contact would get, shown to the team before it
 * is sent.
 */
export async function renderSavedReply(
  r: Reader,
  accountId: string,
  id: string,
  conversationId: string,
): Promise<Answer<typeof renderedSavedReply>> {
  const found = await getSavedReply(r, accountId, id);
  const conversation = await getConversation(r, accountId, conversationId);
  const contact = await r.get<Contact>('contacts', conversation.contactId);
  return {
    ...publicSavedReply(found),
    conversationId: conversation.id,
    renderedText: personalize(found.text, contact ?? { firstName: null, lastName: null, email: null, phone: null }),
  };
}
