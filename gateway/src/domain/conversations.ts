import { fieldError, notFound } from '../errors.js';
import { newId, now } from '../ids.js';
import { batchesOf, firstWanted } from '../store/batches.js';
import type { Page, Placed, Reader, Store, Tx } from '../store/store.js';
import { answering, campaignById, getCampaign, type Campaign, type Channel } from './campaigns.js';
import { getContact, publicContact, type Contact } from './contacts.js';
import {
  conversationContactCorrected,
  conversationRemoved,
  conversationWritten,
  messageAdded,
  type ShownConversation,
} from './inbox-changes.js';
import type { Message } from './messages.js';
import { earlierWait, waitChanged } from './handoff-waits.js';
import { snoozeCancelled } from './snooze-timers.js';
import { labelKey } from './label-key.js';
import type { ConversationAnswer } from '../contract/messages.js';

export type ConversationStatus = 'active' | 'handed_off' | 'opted_out' | 'closed';

/** Where a campaign's opening message to this contact stands. */
export interface OpeningState {
  campaignId: string;
  /** failed: its message is failed now (at once or later), until a retry sends it; sent again then. */
  status: 'queued' | 'held' | 'sent' | 'failed' | 'skipped' | 'cancelled';
  /** Why it was skipped or cancelled: no_phone, no_external_id, wrote_first, opted_out, not_live, left_list. */
  reason: string | null;
  at: string;
}

/** One contact on one channel: the thread the inbox shows, the bot answers and the engine schedules for. */
export interface Conversation {
  id: string;
  accountId: string;
  contactId: string;
  channel: Channel;
  customChannel: string | null;
  /** 'sms', 'whatsapp' or 'custom:<label>': one conversation per contact and key. */
  channelKey: string;
  campaignId: string | null;
  status: ConversationStatus;
  /** Whether the bot answers here; `since` when a person gave it back (it answers only what came after). */
  bot: { active: boolean; since?: string };
  opening: OpeningState | null;
  /** What the engine will do next, if anything: send the opening message or follow-up `step`, or close an unanswered conversation. */
  next: { kind: 'opening' | 'follow_up' | 'close'; at: string; step?: number } | null;
  /** 'held' while a paused campaign holds the next follow-up (an index finds them when it is Live again). */
  followUpHeld: 'held' | null;
  /** When the message before the waiting follow-up went (or it was timed anew): a step's new delay counts from it. */
  followUpFrom?: string | null;
  /** The follow-up that failed at once (no credits, no receiver), and its step: the next waits for a retry to send it. */
  followUpFailed?: { messageId: string; step: number } | null;
  lastMessage: {
    id: string;
    direction: Message['direction'];
    body: string;
    status: string;
    createdAt: string;
    /** Who wrote it, for the inbox's preview; absent on conversations last active before it was kept. */
    author?: Message['author'];
    authorName?: string | null;
  } | null;
  lastIncomingAt: string | null;
  /** The contact's messages (reactions aside) since the account last read the conversation, and when that was. */
  unread?: number;
  lastReadAt?: string | null;
  /** The contact's latest message other than a reaction: the one the bot answers, with any sent just before it. */
  lastIncomingId?: string | null;
  /** The latest contact message the bot has answered (or chosen not to): a reply job run twice answers once. */
  botAnsweredId?: string | null;
  /**
   * The contact's latest message the bot left to a person, its campaign's bot being off (or the campaign paused) when
   * it came or when its answer was due: turned on again, the bot does not answer it, so it still waits for a person.
   */
  botLeftId?: string | null;
  /**
   * The FAQs (indices) the bot asked the contact to choose between, for its campaign, until its next reply, and their
   * questions as the contact read them (absent on those asked before they were kept): the FAQs may be edited meanwhile.
   */
  clarifying?: { campaignId: string; options: number[]; questions?: string[] } | null;
  /**
   * When the bot's answers of the last hour went, its latest few (bot-reply-limit.ts): past the account's limit the
   * team takes the conversation. Kept on the conversation, which every answer writes anyway, rather than counted
   * among the contact's messages; cleared when a person gives the conversation back to the bot.
   */
  botReplyTimes?: string[] | null;
  /** When the bot reported the campaign's goal reached in this conversation. */
  goalReachedAt?: string | null;
  /** The member (or the owner) whose conversation it is to answer; null: nobody's. */
  assigneeId?: string | null;
  /** The latest hand-off: why (see HandoffReason), the contact's message that led to it, and when. */
  handoff?: { reason: string; message: string | null; at: string } | null;
  /** When the contact was last told a person will answer: a hand-off tells them once, a request again after a while. */
  handoffNoticeAt?: string | null;
  /**
   * Since when the contact waits for a person: handed to the team and needing a reply (handoff-waits.ts); null while
   * nobody must act. The contact writing again is the same wait.
   */
  waitingSince?: string | null;
  /** When the team was reminded of this wait; null until then, and once it ends. */
  remindedAt?: string | null;
  /**
   * Until when the team snoozed the conversation (snoozes.ts): hidden from the inbox until then. Never while the
   * contact waits for a person: a wait beginning ends the snooze, as does the contact writing or opting out.
   */
  snoozedUntil?: string | null;
  /** 'snoozed' while `snoozedUntil` is set: an index finds the snoozed conversations. */
  snoozed?: 'snoozed' | null;
  /** The team's labels on it (conversation-labels.ts), as first spelled here; absent on those never labelled. */
  labels?: string[];
  /** 'labelled' while it carries a label: an index finds the labelled conversations. */
  labelled?: 'labelled' | null;
  /** How many of its outgoing messages are failed now (a retry takes one off). */
  failed?: number;
  /** 'failed' while `failed` is above 0: an index finds the conversations with messages to retry. */
  failing?: 'failed' | null;
  /** 'reply' while the conversation needs a reply (needsReply): an index finds them for the inbox. */
  awaiting?: 'reply' | null;
  lastActivityAt: string;
  createdAt: string;
  updatedAt: string;
}

export const channelKeyOf = (channel: Channel, customChannel: string | null) =>
  channel === 'custom' ? `custom:${customChannel ?? ''}` : channel;

export async function getConversation(r: Reader, accountId: string, id: string): Promise<Conversation> {
  const conversation = await r.get<Conversation>('conversations', id);
  if (!conversation || conversation.accountId !== accountId) throw notFound('Conversation');
  return conversation;
}

/** Messages read per step while a contact's are filtered by conversation: most contacts have one or two. */
const MESSAGE_BATCH = 200;

/**
 * The messages of one conversation of the contact's, as `messagesOf` pages the contact's (oldest first, or newest
 * first with `page.order` "desc"): the `limit` first after `page.after`, however many of another conversation's lie
 * between. A conversation that is not the contact's is refused; the contact is read once, not with each batch.
 */
export async function conversationMessages(
  r: Reader,
  accountId: string,
  contactId: string,
  conversationId: string,
  page: Page & { limit: number },
): Promise<Message[]> {
  await getContact(r, accountId, contactId);
  const conversation = await getConversation(r, accountId, conversationId);
  if (conversation.contactId !== contactId)
    throw fieldError('conversationId', 'the conversation is not one of this contact');
  const found: Message[] = [];
  let after = page.after;
  for (;;) {
    const batch = await r.find<Message>('messages', 'contact', [contactId], { ...page, after, limit: MESSAGE_BATCH });
    found.push(...batch.filter((m) => m.conversationId === conversationId));
    if (found.length >= page.limit || batch.length < MESSAGE_BATCH) return found.slice(0, page.limit);
    after = batch.at(-1)!.id;
  }
}

export const conversationsOfContact = (r: Reader, contactId: string) =>
  r.find<Conversation>('conversations', 'contact', [contactId]);

/**
 * The contact's conversation on a channel, if there is one: found among the contact's conversations, which a
 * transaction handling the contact's message reads anyway (a second read of them costs nothing).
 */
export async function existingConversation(
  r: Reader,
  contact: Pick<Contact, 'accountId' | 'id'>,
  channel: Channel,
  customChannel: string | null,
): Promise<Conversation | undefined> {
  const channelKey = channelKeyOf(channel, customChannel);
  return (await conversationsOfContact(r, contact.id)).find(
    (c) => c.accountId === contact.accountId && c.channelKey === channelKey,
  );
}

/** The contact's conversation on a channel, started (under `campaignId`) when there is none yet. */
export async function conversationFor(
  tx: Tx,
  contact: Contact,
  channel: Channel,
  customChannel: string | null,
  campaignId: string | null = null,
): Promise<Conversation> {
  const existing = await existingConversation(tx, contact, channel, customChannel);
  if (existing) return existing;
  const channelKey = channelKeyOf(channel, customChannel);
  const at = now();
  return told(
    tx,
    null,
    await tx.insert<Conversation>('conversations', {
      id: newId('cnv'),
      accountId: contact.accountId,
      contactId: contact.id,
      channel,
      customChannel: channel === 'custom' ? customChannel : null,
      channelKey,
      campaignId,
      status: contact.optOut ? 'opted_out' : 'active',
      bot: { active: true },
      opening: null,
      next: null,
      followUpHeld: null,
      lastMessage: null,
      lastIncomingAt: null,
      lastActivityAt: at,
      createdAt: at,
      updatedAt: at,
    }),
  );
}

/**
 * Records activity: the conversation moves last in the store's order, so that it comes first in the
 * newest-activity-first order of the inbox. A new last message is one added to it: the inbox hears of both.
 */
export async function touchConversation(
  tx: Tx,
  conversation: Conversation,
  patch: Partial<Conversation>,
): Promise<Conversation> {
  const at = now();
  const next = { ...conversation, ...patch, lastActivityAt: at, updatedAt: at };
  const touched = await tx.touch<Conversation>('conversations', conversation.id, {
    ...patch,
    lastActivityAt: at,
    updatedAt: at,
    awaiting: awaitingOf(next),
  });
  if (patch.lastMessage && patch.lastMessage.id !== conversation.lastMessage?.id)
    messageAdded(tx, touched.accountId, touched.id, patch.lastMessage);
  return told(tx, conversation, await timeWait(tx, touched));
}

export async function updateConversation(
  tx: Tx,
  conversation: Conversation,
  patch: Partial<Conversation>,
): Promise<Conversation> {
  // Only a patch that changes what it depends on decides it again: the rest of `conversation` may be older.
  const decides = 'status' in patch || 'lastMessage' in patch;
  // Nobody may write to a contact who opted out: there is nothing to come back to.
  const optedOut = patch.status === 'opted_out' && conversation.snoozedUntil;
  const updated = await tx.update<Conversation>('conversations', conversation.id, {
    ...patch,
    ...(optedOut ? await snoozeCancelled(tx, conversation) : {}),
    ...(decides ? { awaiting: awaitingOf({ ...conversation, ...patch }) } : {}),
    updatedAt: now(),
  });
  return told(tx, conversation, decides ? await timeWait(tx, updated) : updated);
}

/** Whether the contact waits for a person: the team has the conversation, and a person must act (needsReply). */
export const waitsForPerson = (c: Conversation) => c.status === 'handed_off' && needsReply(c);

/**
 * The conversation as written, its wait for a person begun or ended by the write (handoff-waits.ts). Read from the
 * document as stored, so that a wait under way is never begun again.
 */
async function timeWait(tx: Tx, c: Conversation): Promise<Conversation> {
  const waiting = waitsForPerson(c);
  if (waiting === Boolean(c.waitingSince)) return c;
  // A contact waiting for a person is never hidden: a wait beginning (a reply of the team failed) ends a snooze.
  const awake = waiting && c.snoozedUntil ? await snoozeCancelled(tx, c) : {};
  // A wait begun with the team's message last: that reply, which ended the wait, failed after all (its provider or
  // receiver gave up). It answered nothing, so the wait is the one it seemed to end, timed from when that began.
  const wait =
    waiting && c.lastMessage && byTeam(c.lastMessage)
      ? await earlierWait(tx, c, await waitBegan(tx, c))
      : await waitChanged(tx, c, waiting);
  return tx.update<Conversation>('conversations', c.id, { ...wait, ...awake });
}

const MESSAGES_PAGE = 50;

/**
 * When a contact waiting for a person began to wait: at the hand-off, or, once the team answered them since, at the
 * first of the contact's messages and the team's replies that failed after the last reply that reached them. The
 * contact's messages are read newest first, back to the hand-off at most.
 */
export async function waitBegan(r: Reader, c: Conversation): Promise<string> {
  const handedOffAt = c.handoff?.at ?? c.lastIncomingAt ?? c.updatedAt;
  let firstUnanswered: string | undefined;
  let after: string | undefined;
  for (;;) {
    const page = await r.find<Message>('messages', 'contact', [c.contactId], {
      order: 'desc',
      limit: MESSAGES_PAGE,
      after,
    });
    for (const m of page) {
      if (m.createdAt < handedOffAt) return handedOffAt;
      if (m.conversationId !== c.id || m.messageType === 'reaction') continue;
      if (answeredByTeam(m)) return firstUnanswered ?? handedOffAt;
      if (m.direction === 'incoming' || byTeam(m)) firstUnanswered = m.createdAt;
    }
    if (page.length < MESSAGES_PAGE) return handedOffAt;
    after = page.at(-1)!.id;
  }
}

/**
 * Removes a conversation (its contact erased, or folded into another by a merge): the inbox hears it is gone, and
 * nobody is reminded of its wait.
 */
export async function removeConversation(tx: Tx, conversation: Conversation): Promise<void> {
  if (conversation.waitingSince) await waitChanged(tx, conversation, false);
  if (conversation.snoozedUntil) await snoozeCancelled(tx, conversation);
  await tx.remove('conversations', conversation.id);
  conversationRemoved(tx, conversation.accountId, conversation.id);
}

/** The contact's name, phone or email was corrected: each of its conversations is told to the inbox again. */
export async function contactCorrected(tx: Tx, contactId: string): Promise<void> {
  for (const c of await conversationsOfContact(tx, contactId)) conversationContactCorrected(tx, shownOf(c));
}

/** Every write of a conversation goes through here: the inbox hears what changed (see inbox-changes.ts). */
function told(tx: Tx, before: Conversation | null, after: Conversation): Conversation {
  conversationWritten(tx, before && shownOf(before), shownOf(after));
  return after;
}

const shownOf = (c: Conversation): ShownConversation => ({
  id: c.id,
  accountId: c.accountId,
  status: c.status,
  needsReply: needsReply(c),
  unread: c.unread ?? 0,
  botActive: c.bot.active,
  failed: c.failed ?? 0,
  assigneeId: c.assigneeId ?? null,
  // Its contact too: a merge gives the conversation to the contact kept, whose name the inbox shows then.
  rest: `${c.lastMessage?.id ?? ''} ${c.handoff?.at ?? ''} ${c.lastReadAt ?? ''} ${c.goalReachedAt ?? ''} ${c.campaignId ?? ''} ${c.contactId} ${c.remindedAt ?? ''} ${leftByBot(c)} ${c.snoozedUntil ?? ''} ${JSON.stringify(c.labels ?? [])}`,
});

/** What the gateway writes by itself: it tells the contact something, but answers nothing a person must. */
const AUTOMATIC: ReadonlySet<Message['author']> = new Set(['bot', 'system']);
export const writtenByGateway = (author: Message['author'] | undefined) => AUTOMATIC.has(author ?? null);

type Written = { direction: Message['direction']; author?: Message['author']; status: string };

/** Whether a message is the team's (a person's, or a workflow's with the API key). */
const byTeam = (m: Written) => m.direction === 'outgoing' && !writtenByGateway(m.author);

/**
 * Whether the team's message answered the contact: it reached them. One that failed (no credits, no receiver of a
 * custom channel's replies, the provider or every receiver gave up) or was stored and not sent (outside WhatsApp's
 * 24-hour window) answered nothing. One still pending is on its way: it answers as a sent one does, until it fails.
 */
const answeredByTeam = (m: Written) => byTeam(m) && m.status !== 'failed' && m.status !== 'skipped';

/**
 * A conversation needs a reply when a person must act: the contact's message is the latest one (no one, bot or
 * person, has answered it), or the conversation was handed to the team and nothing of the team reached the contact
 * since: only the gateway spoke (the bot's or the hand-off's notice), or the team's reply failed. Never for a contact
 * who opted out: nobody may write to them.
 */
export const needsReply = (c: Pick<Conversation, 'status' | 'lastMessage'>) =>
  c.status !== 'opted_out' &&
  (c.lastMessage?.direction === 'incoming' ||
    (c.status === 'handed_off' && c.lastMessage?.direction === 'outgoing' && !answeredByTeam(c.lastMessage)));
export const awaitingOf = (c: Pick<Conversation, 'status' | 'lastMessage'>) =>
  needsReply(c) ? ('reply' as const) : null;

/** An outgoing message was sent or failed: its conversation shows it, when it is the last message there. */
export async function messageSettled(tx: Tx, message: Message): Promise<void> {
  const conversation = message.conversationId
    ? await tx.get<Conversation>('conversations', message.conversationId)
    : undefined;
  if (conversation?.lastMessage?.id === message.id)
    await updateConversation(tx, conversation, { lastMessage: lastMessageOf(message) });
}

export function lastMessageOf(m: Message): Conversation['lastMessage'] {
  return {
    id: m.id,
    direction: m.direction,
    body: m.body,
    status: m.status,
    createdAt: m.createdAt,
    author: m.author,
    authorName: m.authorName,
  };
}

/**
 * Whether the bot answers the contact's next message: on here (not handed off), the contact not opted out, and its
 * campaign's bot on and the campaign not paused. One it will not answer waits for a person, who must hear of it as of
 * a hand-off. A conversation of no campaign yet is answered by whichever campaign's bot takes it, or handed off.
 */
const botAnswers = (c: Conversation, campaign: Campaign | undefined) =>
  c.bot.active && c.status !== 'opted_out' && (c.campaignId === null || answering(campaign));

/**
 * Whether the contact's message waiting is one the bot left to a person (`botLeftId`): its bot on again since answers
 * their next message (`answers`), not that one, which a person must hear of as of a hand-off.
 */
const leftByBot = (c: Conversation) =>
  !!c.botLeftId && c.botLeftId === c.lastIncomingId && c.lastMessage?.direction === 'incoming';

/** The conversation as the API answers it, with its contact (read unless given) and its campaign's bot. */
export async function conversationAnswer(r: Reader, c: Conversation, contact?: Contact): Promise<ConversationAnswer> {
  const [person, campaign] = await Promise.all([
    contact ?? r.get<Contact>('contacts', c.contactId),
    c.campaignId ? campaignById(r, c.campaignId) : undefined,
  ]);
  return publicConversation(c, person, campaign);
}

function publicConversation(
  c: Conversation,
  contact: Contact | undefined,
  campaign: Campaign | undefined,
): ConversationAnswer {
  const {
    accountId: _a,
    channelKey: _k,
    followUpHeld: _h,
    followUpFrom: _ff,
    followUpFailed: _fail,
    lastIncomingId: _i,
    botAnsweredId: _b,
    botLeftId: _l,
    clarifying: _c,
    botReplyTimes: _t,
    failing: _f,
    awaiting: _w,
    handoffNoticeAt: _n,
    snoozed: _s,
    labelled: _lb,
    ...rest
  } = c;
  return {
    ...rest,
    // A follow-up a pause holds is due at no time: Live again, it is timed anew (the step is kept for then).
    next: c.followUpHeld ? null : c.next,
    bot: { ...c.bot, answers: botAnswers(c, campaign) },
    botLeft: leftByBot(c),
    goalReachedAt: c.goalReachedAt ?? null,
    handoff: c.handoff ?? null,
    assigneeId: c.assigneeId ?? null,
    unread: c.unread ?? 0,
    lastReadAt: c.lastReadAt ?? null,
    failed: c.failed ?? 0,
    needsReply: needsReply(c),
    waitingSince: c.waitingSince ?? null,
    remindedAt: c.remindedAt ?? null,
    snoozedUntil: c.snoozedUntil ?? null,
    labels: c.labels ?? [],
    contact: contact ? publicContact(contact) : null,
  };
}

export interface ConversationFilters {
  status?: ConversationStatus;
  campaignId?: string;
  channel?: Channel;
  /** Only the conversations holding a failed outgoing message (true), or only those holding none (false). */
  failed?: boolean;
  /** Only the conversations that need a reply (true), or only those that do not (false). */
  needsReply?: boolean;
  /** Only the conversations whose wait for a person the team was reminded of (true), or only the others (false). */
  reminded?: boolean;
  /** Only the snoozed conversations (true), or only the others (false). */
  snoozed?: boolean;
  /** Only the conversations carrying this label, case aside. */
  label?: string;
  /** Only the conversations of this member, or (`none`) only those of nobody. */
  assigneeId?: string;
  /** Only the conversations of this contact (one per channel it writes on). */
  contactId?: string;
}

/** One of the conversation's messages failed (`by` 1), or a failed one went out again (`by` -1). */
export async function countFailed(tx: Tx, conversationId: string | null, by: 1 | -1): Promise<void> {
  const conversation = conversationId ? await tx.get<Conversation>('conversations', conversationId) : undefined;
  if (!conversation) return;
  const failed = Math.max(0, (conversation.failed ?? 0) + by);
  told(
    tx,
    conversation,
    await tx.update<Conversation>('conversations', conversation.id, { failed, failing: failed > 0 ? 'failed' : null }),
  );
}

const SCAN_BATCH = 200;

/**
 * The account's conversations, newest activity first, `page.limit` after `page.after`, each with its place in that
 * order as read: a conversation that moves up meanwhile neither shows twice nor sends the next page back to the
 * start. The most selective filter picks the index; the others are checked on what it yields, reading on until the
 * page is full.
 */
export async function conversationsOf(
  r: Reader & Pick<Store, 'findPlaced'>,
  accountId: string,
  filters: ConversationFilters,
  page: { limit: number; after?: Page['after'] },
): Promise<Array<Placed<Conversation>>> {
  const { status, campaignId, channel, failed, reminded, snoozed, assigneeId, contactId } = filters;
  const label = filters.label === undefined ? undefined : labelKey(filters.label);
  const awaiting = filters.needsReply;
  const assigned = assigneeId && assigneeId !== 'none' ? assigneeId : undefined;
  // A filter naming a campaign the account does not have is answered like the campaign's own URL would be.
  if (campaignId) await getCampaign(r, accountId, campaignId);
  if (contactId) await getContact(r, accountId, contactId);
  const [index, values] = contactId
    ? ['contact', [contactId]]
    : label !== undefined
      ? ['labelled', [accountId, 'labelled']]
      : failed
        ? ['failing', [accountId, 'failed']]
        : snoozed
          ? ['snoozed', [accountId, 'snoozed']]
          : assigned
            ? ['assignee', [accountId, assigned]]
            : // A conversation reminded of waits for a person: it needs a reply.
              awaiting || reminded
              ? ['awaiting', [accountId, 'reply']]
              : status
                ? ['status', [accountId, status]]
                : campaignId
                  ? ['campaign', [accountId, campaignId]]
                  : channel
                    ? ['kind', [accountId, channel]]
                    : ['account', [accountId]];
  const wanted = (c: Conversation) =>
    (!status || c.status === status) &&
    (!campaignId || c.campaignId === campaignId) &&
    (!channel || c.channel === channel) &&
    (failed === undefined || (c.failing === 'failed') === failed) &&
    (awaiting === undefined || needsReply(c) === awaiting) &&
    (reminded === undefined || Boolean(c.remindedAt) === reminded) &&
    (snoozed === undefined || Boolean(c.snoozedUntil) === snoozed) &&
    (label === undefined || (c.labels ?? []).some((l) => labelKey(l) === label)) &&
    (assigneeId === undefined || (c.assigneeId ?? 'none') === assigneeId) &&
    (!contactId || (c.contactId === contactId && c.accountId === accountId));
  const batches = batchesOf<Conversation>(r, 'conversations', index, values, {
    size: SCAN_BATCH,
    order: 'desc',
    after: page.after,
  });
  return firstWanted(batches, (placed) => wanted(placed.doc), page.limit);
}
