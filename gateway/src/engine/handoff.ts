import type { HandoffReason } from '../api-contract.js';
import type { Gateway } from '../context.js';
import { metrics } from '../metrics.js';
import type { Account } from '../domain/accounts.js';
import type { Campaign } from '../domain/campaigns.js';
import { getContact, type Contact } from '../domain/contacts.js';
import {
  conversationsOfContact,
  getConversation,
  updateConversation,
  type Conversation,
} from '../domain/conversations.js';
import { assigneeOf, heldByAbsent, takeTurn, tellTeam } from '../domain/assignment.js';
import { recordStep } from '../domain/funnel.js';
import type { Actor } from '../domain/members.js';
import type { Message } from '../domain/messages.js';
import { ApiError, fieldError } from '../errors.js';
import { now } from '../ids.js';
import { clockNow } from '../clock.js';
import { awayNotice, handoffNotice } from '../domain/texts.js';
import { outOfHours } from '../domain/business-time.js';
import { textTooLong } from '../domain/text-limits.js';
import type { Tx } from '../store/store.js';
import { cancelFollowUps } from '../domain/follow-up-timers.js';
import { sendOnConversation } from './outgoing.js';

/**
 * A person takes the conversation: the bot stays silent, follow-ups stop, and the `handoff` event tells the team,
 * naming who has it. Under round robin an unassigned conversation goes to the next agent in turn; an assigned one
 * stays with its assignee, unless they are away and the contact or the bot asked for a person: then it is handed
 * off as if nobody had it (to the next available in turn, else to nobody, which every member is told of), as their
 * going away would have handed it on had it waited then. A member taking it over (`team`) keeps it, away or not. An
 * opted-out conversation stays opted out.
 */
export async function handOff(
  tx: Tx,
  account: Account,
  conversation: Conversation,
  reason: HandoffReason,
  body: string | null,
): Promise<Conversation> {
  const stopped = await cancelFollowUps(tx, conversation);
  const passedBy = reason !== 'team' && (await heldByAbsent(tx, account, stopped));
  const open = !stopped.assigneeId || passedBy;
  const inTurn = open && account.handoffAssignment === 'round_robin' ? await takeTurn(tx, account.id) : undefined;
  const updated = await updateConversation(tx, stopped, {
    bot: { active: false },
    status: stopped.status === 'opted_out' ? 'opted_out' : 'handed_off',
    handoff: { reason, message: body, at: now() },
    ...(inTurn ? { assigneeId: inTurn.id } : passedBy ? { assigneeId: null } : {}),
  });
  await recordStep(tx, 'handedOff', updated);
  tx.afterCommit(() => metrics.handoffs.inc({ reason }));
  await tellTeam(tx, account, updated, reason, body);
  return updated;
}

/**
 * The gateway's own hand-off notice, free: the campaign's words, else the account's, else the built-in text; out of
 * the account's business hours, its away notice instead, which promises no answer before the team is back.
 */
const noticeOf = (
  campaign: Campaign | undefined,
  account: Account,
  away = outOfHours(account.businessHours, clockNow()),
) => ({ body: away ? awayNotice(campaign, account) : handoffNotice(campaign, account), author: 'system' }) as const;

/**
 * Every contact who writes hears back: a hand-off their message caused tells them a person will answer, in the
 * campaign's words, else the account's, else the built-in text (texts.ts). The notice goes first, so the conversation
 * waits for the team with the gateway's words last (needsReply). The bot tells it in its own words where it gave some,
 * a bot reply paid as any other; an account that cannot pay for it sends the gateway's notice instead, free: the
 * contact is told all the same, and no answer of the bot goes unpaid. Out of business hours the away notice stands in
 * for the bot's words too (an LLM says "someone will be with you shortly"), sent and paid as they would have been;
 * words that answer part of a burst (`answers`) are kept, since they hold what the contact asked for.
 */
export async function tellHandoff(
  tx: Tx,
  gw: Gateway,
  account: Account,
  contact: Contact,
  conversation: Conversation,
  campaign: Campaign | undefined,
  bot?: { body: string | null; answers?: boolean },
): Promise<Conversation> {
  if (contact.optOut) return conversation;
  // The hours read once: the notice and the choice of words agree, even at the minute the team comes or goes.
  const away = outOfHours(account.businessHours, clockNow());
  const notice = noticeOf(campaign, account, away);
  const words = away && !bot?.answers ? notice.body : (bot?.body ?? notice.body);
  const out =
    bot && campaign ? { body: words, author: 'bot' as const, campaignId: campaign.id, unpaid: notice } : notice;
  const sent = await sendOnConversation(tx, gw, account, contact, conversation, out);
  return updateConversation(tx, sent.conversation, { handoffNoticeAt: sent.message.createdAt });
}

/**
 * The bot's answer, paid as any message. Where the account cannot pay for it, the team takes the conversation
 * (`no_credits`) and the contact is told a person will answer, in the gateway's free notice: nobody who writes meets
 * silence, and the `handoff` event tells the team. Undefined when it was handed off so.
 */
export async function sendBotAnswer(
  tx: Tx,
  gw: Gateway,
  account: Account,
  contact: Contact,
  conversation: Conversation,
  campaign: Campaign,
  answer: { body: string; question: string },
): Promise<{ message: Message; conversation: Conversation } | undefined> {
  const out = {
    body: answer.body,
    author: 'bot' as const,
    campaignId: campaign.id,
    unpaid: noticeOf(campaign, account),
  };
  const sent = await sendOnConversation(tx, gw, account, contact, conversation, out);
  if (!sent.unpaid) return sent;
  const told = await updateConversation(tx, sent.conversation, { handoffNoticeAt: sent.message.createdAt });
  await handOff(tx, account, told, 'no_credits', answer.question);
  return undefined;
}

/** How long a contact who asks again for a person waits before being told again: a request is never met by silence, nor by a stream of notices. */
const NOTICE_INTERVAL_MS = 10 * 60_000;

/**
 * A contact asks for a person while one already has the conversation: the request is acknowledged, unless they were
 * told within NOTICE_INTERVAL_MS. The team already has it: no second hand-off.
 */
export async function acknowledgeRequest(
  tx: Tx,
  gw: Gateway,
  account: Account,
  contact: Contact,
  conversation: Conversation,
  campaign: Campaign | undefined,
): Promise<void> {
  const toldAt = conversation.handoffNoticeAt ? Date.parse(conversation.handoffNoticeAt) : -Infinity;
  if (clockNow() - toldAt < NOTICE_INTERVAL_MS) return;
  await tellHandoff(tx, gw, account, contact, conversation, campaign);
}

/** Whether a person taking the conversation over is news: the bot had it, or it waited for a campaign (no_campaign). */
export const takingOver = (c: Conversation) => c.bot.active || c.handoff?.reason === 'no_campaign';

/** POST /v1/contacts/{id}/bot: hands every conversation of the contact to a person, or gives them back to the bot. */
export async function setBot(
  gw: Gateway,
  account: Account,
  contactId: string,
  active: boolean,
): Promise<Conversation[]> {
  return gw.store.transact(async (tx) => {
    await getContact(tx, account.id, contactId);
    const result: Conversation[] = [];
    for (const conversation of await conversationsOfContact(tx, contactId)) {
      if (!active)
        result.push(takingOver(conversation) ? await handOff(tx, account, conversation, 'team', null) : conversation);
      else {
        const status = conversation.status === 'handed_off' ? 'active' : conversation.status;
        // Given back, the bot's count starts afresh: a person has looked at it, and the next message is answered. Only
        // given back: a workflow turning on a bot that is on already does not lift the limit.
        const afresh = conversation.bot.active ? {} : { botReplyTimes: null };
        const back = { bot: { active: true, since: now() }, status, ...afresh };
        result.push(await updateConversation(tx, conversation, back));
      }
    }
    return result;
  });
}

/**
 * POST /v1/contacts/{id}/messages: a team member's reply, on the given conversation or the contact's most recent
 * one, signed by `by`. A person writing has taken over: the bot stops there. Someone answering from the console
 * takes an unassigned conversation (`takes`); a workflow writing with the API key leaves it as it is.
 */
export async function teamReply(
  gw: Gateway,
  account: Account,
  contactId: string,
  reply: {
    body: string;
    conversationId?: string;
    /** Who the caller saw having the conversation (null: nobody), when they say. */
    expected?: string | null;
    by: Actor;
    takes: boolean;
    /** Keeps the reply's answer in its own transaction, for an Idempotency-Key to replay (domain/idempotency). */
    remember?: (tx: Tx, message: Message) => Promise<void>;
  },
): Promise<Message> {
  const { body, conversationId, by } = reply;
  return gw.store.transact(async (tx) => {
    const contact = await getContact(tx, account.id, contactId);
    let conversation: Conversation | undefined;
    if (conversationId) {
      conversation = await getConversation(tx, account.id, conversationId);
      if (conversation.contactId !== contact.id)
        throw fieldError('conversationId', 'the conversation is not one of this contact');
    } else {
      [conversation] = await tx.find<Conversation>('conversations', 'contact', [contact.id], {
        order: 'desc',
        limit: 1,
      });
    }
    if (!conversation) {
      throw new ApiError(
        409,
        'NO_CONVERSATION',
        "The contact has no conversation yet: one starts with a campaign's opening message or a message from the contact",
      );
    }
    // Someone else took it since it was read: they are answering it, and the contact should not get two answers.
    const holder = conversation.assigneeId ?? null;
    if (reply.expected !== undefined && holder !== reply.expected && holder !== null && holder !== by.id) {
      const taker = await assigneeOf(tx, account, conversation);
      throw new ApiError(
        409,
        'ASSIGNEE_CHANGED',
        `${taker?.name ?? 'Someone else'} has had this conversation since it was read: your reply was not sent`,
      );
    }
    // Refused while the person can still shorten it: the channel would refuse it after it was stored and paid for.
    const tooLong = textTooLong(conversation.channel, body);
    if (tooLong) throw fieldError('body', tooLong);
    const sent = await sendOnConversation(tx, gw, account, contact, conversation, { body, author: 'team', by });
    const taken =
      reply.takes && !sent.conversation.assigneeId
        ? await updateConversation(tx, sent.conversation, { assigneeId: by.id })
        : sent.conversation;
    if (takingOver(taken)) await handOff(tx, account, taken, 'team', null);
    const message = (await tx.get<Message>('messages', sent.message.id))!;
    await reply.remember?.(tx, message);
    return message;
  });
}
