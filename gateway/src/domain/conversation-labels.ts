import type { Gateway } from '../context.js';
import { ApiError } from '../errors.js';
import { batchesOf } from '../store/batches.js';
import type { Store, Tx } from '../store/store.js';
import { emitEvent } from './emit-event.js';
import { getConversation, updateConversation, type Conversation } from './conversations.js';
import { labelKey, MAX_LABELS } from './label-key.js';

/** `labels` with those of `more` it lacks (case aside) added after them, in the spelling first given. */
function withLabels(labels: readonly string[], more: readonly string[]): string[] {
  const all = [...labels];
  const keys = new Set(labels.map(labelKey));
  for (const label of more) {
    const key = labelKey(label);
    if (keys.has(key)) continue;
    keys.add(key);
    all.push(label.trim());
  }
  return all;
}

/** A conversation's labels, and its place in the index of the labelled conversations (none without labels). */
const labelled = (labels: string[]): Partial<Conversation> => ({
  labels,
  labelled: labels.length ? 'labelled' : null,
});

/** Tells the account's workflows what a member or a workflow changed; nothing when nothing did. */
async function tellLabeled(tx: Tx, c: Conversation, added: string[], removed: string[]) {
  if (added.length === 0 && removed.length === 0) return;
  await emitEvent(tx, c.accountId, 'conversation_labeled', {
    conversationId: c.id,
    contactId: c.contactId,
    added,
    removed,
    labels: c.labels ?? [],
  });
}

/**
 * POST /v1/conversations/{id}/labels: the labels it lacks are added after its own, in their order; one it carries
 * already (case aside) changes nothing, its spelling included. More than MAX_LABELS in all is refused whole (409
 * TOO_MANY_LABELS), so that a workflow tagging in a loop learns it rather than losing labels without a word.
 */
export async function addLabels(
  gw: Gateway,
  accountId: string,
  conversationId: string,
  labels: readonly string[],
): Promise<Conversation> {
  return gw.store.transact(async (tx) => {
    const conversation = await getConversation(tx, accountId, conversationId);
    const own = conversation.labels ?? [];
    const all = withLabels(own, labels);
    if (all.length === own.length) return conversation;
    if (all.length > MAX_LABELS)
      throw new ApiError(
        409,
        'TOO_MANY_LABELS',
        `A conversation carries at most ${MAX_LABELS} labels: it has ${own.length}, and ${all.length - own.length} more would make ${all.length}. Remove some first`,
      );
    const updated = await updateConversation(tx, conversation, labelled(all));
    await tellLabeled(tx, updated, all.slice(own.length), []);
    return updated;
  });
}

/**
 * DELETE /v1/conversations/{id}/labels/{label}: the label goes, case aside. One it does not carry is answered as the
 * conversation is, as a snooze woken twice is: a workflow removing "hot lead" wherever it is needs no check first.
 */
export async function removeLabel(
  gw: Gateway,
  accountId: string,
  conversationId: string,
  label: string,
): Promise<Conversation> {
  return gw.store.transact(async (tx) => {
    const conversation = await getConversation(tx, accountId, conversationId);
    const own = conversation.labels ?? [];
    const key = labelKey(label);
    const removed = own.filter((l) => labelKey(l) === key);
    if (removed.length === 0) return conversation;
    const updated = await updateConversation(tx, conversation, labelled(own.filter((l) => labelKey(l) !== key)));
    await tellLabeled(tx, updated, [], removed);
    return updated;
  });
}

/**
 * A merge folds `from` into `into`: the one left carries both's labels, its own first, then the other's it lacks,
 * up to MAX_LABELS (a merge is never refused for labels: the other's last ones are left off). Nothing when it gains
 * none. Told to no workflow: the labels were put on by someone already.
 */
export function foldedLabels(into: Conversation, from: Conversation): Partial<Conversation> {
  const own = into.labels ?? [];
  const all = withLabels(own, from.labels ?? []).slice(0, MAX_LABELS);
  return all.length === own.length ? {} : labelled(all);
}

/** Conversations read per step while the account's labels are counted. */
const SCAN_BATCH = 500;

/**
 * GET /v1/labels: every label of the account's conversations, with how many carry it, by name (case aside). A label
 * spelled differently on different conversations is named as most of them spell it (the most recent one's on a tie).
 */
export async function labelsOf(
  r: Pick<Store, 'findPlaced'>,
  accountId: string,
): Promise<Array<{ name: string; conversations: number }>> {
  const counts = new Map<string, { conversations: number; spellings: Map<string, number> }>();
  // Only the labelled are read; a conversation moving up the inbox meanwhile is counted once.
  const batches = batchesOf<Conversation>(r, 'conversations', 'labelled', [accountId, 'labelled'], {
    size: SCAN_BATCH,
    order: 'desc',
  });
  for await (const batch of batches)
    for (const { doc: c } of batch)
      for (const label of c.labels ?? []) {
        const key = labelKey(label);
        const counted = counts.get(key) ?? { conversations: 0, spellings: new Map<string, number>() };
        counted.conversations += 1;
        counted.spellings.set(label, (counted.spellings.get(label) ?? 0) + 1);
        counts.set(key, counted);
      }
  return [...counts.entries()]
    .map(([key, { conversations, spellings }]) => ({
      key,
      // Map keeps the order of first sight, newest activity first: the first of the most used wins a tie.
      name: [...spellings.entries()].reduce((a, b) => (b[1] > a[1] ? b : a))[0],
      conversations,
    }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ name, conversations }) => ({ name, conversations }));
}
