import { answersOnly, type HandoffReason } from '../api-contract.js';
import { metrics } from '../metrics.js';
import type { Engine } from './ports/providers.js';
import type { Account } from '../domain/accounts.js';
import { answering, campaignById, type Campaign } from '../domain/campaigns.js';
import type { Contact } from '../domain/contacts.js';
import { conversationsOfContact, updateConversation, type Conversation } from '../domain/conversations.js';
import { recordStep } from '../domain/funnel.js';
import type { Message } from '../domain/messages.js';
import { now } from '../ids.js';
import { REPLY_LIMITS, type BotAnswer, type BotConversation, type BotReply } from './ports/bot-provider.js';
import { textTooLong } from '../domain/text-limits.js';
import { isUnanswered, recordUnanswered } from '../domain/unanswered.js';
import type { Reader, Tx } from '../store/store.js';
import { newJob, type JobKinds } from '../domain/job-kinds.js';
import { emitEvent } from '../domain/emit-event.js';
import { scheduleFollowUp } from './follow-ups.js';
import { handOff, sendBotAnswer, tellHandoff } from './handoff.js';
import { clockNow } from '../clock.js';
import { botReplyLimitReached } from '../domain/bot-reply-limit.js';

/** At most this many earlier messages go to the bot as the conversation so far. */
const HISTORY = 20;

export const replyKey = (messageId: string) => `bot_reply:${messageId}`;

/**
 * A contact's message the bot may answer: its reply job waits `debounceMs`, so that a burst ("hi" "I saw your ad"
 * "how much is it?") is answered once. Each message has its own job; the one for the latest message answers, the
 * others find a newer message and do nothing. A message no campaign's bot would answer queues nothing: it
 * is left to a person (`botLeftId`).
 */
export async function scheduleBotReply(
  tx: Tx,
  account: Account,
  conversation: Conversation,
  message: Message,
  others: Conversation[],
  debounceMs: number,
): Promise<void> {
  // Left to a person, who must hear of it: the bot turned on again will not answer it (conversations.ts, leftByBot).
  if (!answering(await campaignForReply(tx, account, conversation, message, others)))
    return void (await updateConversation(tx, conversation, { botLeftId: message.id }));
  await tx.enqueue(
    newJob(
      'bot_reply',
      { conversationId: conversation.id, messageId: message.id },
      {
        runAt: clockNow() + debounceMs,
        key: replyKey(message.id),
        accountId: conversation.accountId,
      },
    ),
  );
}

/**
 * The campaign whose bot answers: the one the message names (customData.campaignId), else the conversation's, else
 * the contact's latest on another channel (of `others`, the contact's conversations), else the account's default.
 * An archived campaign is done with: named, or the conversation's, it answers nothing as a paused one does; it takes
 * on no conversation of its own accord, so that a contact none other reaches is handed to the team and told so.
 */
export async function campaignForReply(
  r: Reader,
  account: Account,
  conversation: Conversation,
  message: Message,
  others: Conversation[],
): Promise<Campaign | undefined> {
  const mine = async (id: string | null | undefined) => {
    const campaign = id ? await campaignById(r, id) : undefined;
    return campaign?.accountId === account.id ? campaign : undefined;
  };
  const named = (await mine(message.campaignId)) ?? (await mine(conversation.campaignId));
  if (named) return named;
  const latest = others.filter((c) => c.campaignId).sort((a, b) => b.lastActivityAt.localeCompare(a.lastActivityAt))[0];
  const taking = async (id: string | null | undefined) => {
    const campaign = await mine(id);
    return campaign?.status === 'archived' ? undefined : campaign;
  };
  return (await taking(latest?.campaignId)) ?? (await taking(account.bot?.defaultCampaignId));
}

/** Whether the bot may still speak on this conversation: on, not handed off, the contact not opted out. */
const botMaySpeak = (conversation: Conversation, contact: Contact) =>
  conversation.bot.active && conversation.status === 'active' && !contact.optOut;

/** The conversation as the bot reads it: the contact's unanswered messages, and what came before. */
async function contextOf(
  r: Reader,
  conversation: Conversation,
  contact: Contact,
  campaign: Campaign,
): Promise<BotConversation> {
  const recent = (await r.find<Message>('messages', 'contact', [contact.id], { order: 'desc', limit: 3 * HISTORY }))
    .filter((m) => m.conversationId === conversation.id && m.messageType !== 'reaction')
    .reverse();
  // Answered: everything up to our latest message, and up to the latest the bot chose to leave unanswered ("ok").
  const answeredUpTo = Math.max(
    recent.map((m) => m.direction).lastIndexOf('outgoing'),
    recent.findIndex((m) => m.id === conversation.botAnsweredId),
  );
  const since = conversation.bot.since ?? '';
  const unanswered = recent
    .slice(answeredUpTo + 1)
    .filter((m) => m.createdAt >= since)
    .map((m) => m.body.trim())
    .filter(Boolean);
  const history = recent
    .filter((m, i) => i <= answeredUpTo || m.createdAt < since)
    .slice(-HISTORY)
    .map((m) => ({
      from:
        m.direction === 'incoming'
          ? ('contact' as const)
          : m.author === 'team' || m.author === 'api'
            ? ('team' as const)
            : ('bot' as const),
      body: m.body,
    }));
  return {
    contact: { firstName: contact.firstName, lastName: contact.lastName },
    history,
    message: unanswered.join('\n'),
    messages: unanswered,
    clarifying: offeredNow(conversation, campaign),
    replyLimit: REPLY_LIMITS[conversation.channel],
  };
}

/**
 * The FAQs the bot last offered the contact ("Do you mean: 1. … 2. …?"), as the campaign holds them now: an FAQ added,
 * removed or moved since shifts the indices, and "1" must pick the question the contact read, not whichever FAQ now
 * has its place. One whose question is no longer among the FAQs (removed, or reworded) is offered no more (-1): its
 * number picks nothing, and the message is read as a question.
 */
function offeredNow(conversation: Conversation, campaign: Campaign): number[] | null {
  const offered = conversation.clarifying;
  if (offered?.campaignId !== campaign.id) return null;
  if (!offered.questions) return offered.options;
  const faqs = campaign.bot.faqs;
  return offered.options.map((index, i) => {
    const question = offered.questions![i];
    return faqs[index]?.question === question ? index : faqs.findIndex((f) => f.question === question);
  });
}

/**
 * Job `bot_reply`: the bot answers the contact's latest messages. The answer is worked out outside any transaction
 * (an LLM may take seconds), then written in one that checks nothing changed meanwhile: a newer message (its own job
 * answers), a hand-off, an opt-out, the campaign's bot turned off or the campaign paused, or this very answer already
 * sent by an earlier run.
 */
export async function runBotReply(gw: Engine, { conversationId, messageId }: JobKinds['bot_reply']): Promise<void> {
  const current = (c: Conversation | undefined): c is Conversation =>
    c?.lastIncomingId === messageId && c.botAnsweredId !== messageId;
  const conversation = await gw.store.get<Conversation>('conversations', conversationId);
  if (!current(conversation)) return;
  const [account, contact, message] = await Promise.all([
    gw.store.get<Account>('accounts', conversation.accountId),
    gw.store.get<Contact>('contacts', conversation.contactId),
    gw.store.get<Message>('messages', messageId),
  ]);
  if (!account || !contact || !message || !botMaySpeak(conversation, contact)) return;
  const campaign = await campaignForReply(
    gw.store,
    account,
    conversation,
    message,
    await conversationsOfContact(gw.store, contact.id),
  );
  if (!answering(campaign)) return leaveToPerson(gw, conversationId, messageId);
  const context = await contextOf(gw.store, conversation, contact, campaign);
  // A file with no text (a photo, a voice note) is no "ok" to leave unanswered: the bot reads text only.
  const fileOnly = !context.message && !!message.media && message.createdAt >= (conversation.bot.since ?? '');
  if (!context.message && !fileOnly) return;
  // Past the limit no answer is worked out at all: an LLM's is paid for too.
  const runaway = botReplyLimitReached(account, conversation);
  const answer = fileOnly || runaway ? undefined : await gw.providers.answer(gw, account, campaign, context);

  await gw.store.transact(async (tx) => {
    const latest = await tx.get<Conversation>('conversations', conversationId);
    const person = await tx.get<Contact>('contacts', contact.id);
    if (!current(latest) || !person || !botMaySpeak(latest, person)) return;
    // Turned off (or paused) while the answer was worked out, an LLM taking seconds: the owner stopped the bot, whose
    // answer goes nowhere, and the message is left to a person.
    if (!answering(await campaignById(tx, campaign.id)))
      return void (await updateConversation(tx, latest, { botLeftId: messageId }));
    // A question the bot asks stands until its next reply, which reads the answer to it.
    const clarifying =
      answer?.reply.kind === 'clarify'
        ? {
            campaignId: campaign.id,
            options: answer.reply.options,
            questions: answer.reply.options.map((i) => campaign.bot.faqs[i]?.question ?? ''),
          }
        : null;
    const marked = await updateConversation(tx, latest, {
      botAnsweredId: messageId,
      campaignId: latest.campaignId ?? campaign.id,
      clarifying,
    });
    if (runaway || botReplyLimitReached(account, latest))
      await stopRunaway(tx, gw, account, person, marked, campaign, context.message || null);
    else if (answer) await speak(tx, gw, account, person, marked, campaign, answer, message);
    else await handToTeam(tx, gw, account, person, marked, campaign, FILE_ONLY, message);
  });
}

/**
 * The bot has answered the conversation as often within the hour as the account allows (botReplyLimit): a
 * conversation that ran away, a bridge posting the bot's replies back as the contact's or two bots answering each
 * other, would be answered for ever, each answer paid for. The answer past the limit is not given; the team takes the
 * conversation, with the contact's unanswered messages, and the contact is told a person will answer in the gateway's
 * own notice: free, and no answer of the bot's, so it counts for nothing. Its echo, if the bridge posts it back too,
 * finds the conversation with the team and waits for a person, as every message does until one gives it back.
 */
async function stopRunaway(
  tx: Tx,
  gw: Engine,
  account: Account,
  contact: Contact,
  conversation: Conversation,
  campaign: Campaign,
  body: string | null,
): Promise<void> {
  const told = await tellHandoff(tx, gw, account, contact, conversation, campaign);
  await handOff(tx, account, told, 'bot_reply_limit', body);
}

/** The campaign's bot was turned off (or the campaign paused) before its answer was due: a person answers it. */
async function leaveToPerson(gw: Engine, conversationId: string, messageId: string): Promise<void> {
  await gw.store.transact(async (tx) => {
    const latest = await tx.get<Conversation>('conversations', conversationId);
    if (latest?.lastIncomingId === messageId && latest.botAnsweredId !== messageId)
      await updateConversation(tx, latest, { botLeftId: messageId });
  });
}

type Handoff = Extract<BotReply, { kind: 'handoff' }>;
/** A hand-off for any reason the engine may add to the bot's own. */
type ToTeam = Omit<Handoff, 'reason'> & { reason: HandoffReason };
/** A reply to send, or a hand-off. */
type Spoken = Exclude<BotReply, { kind: 'silent' | 'handoff' }> | ToTeam;

/** The contact's file the bot cannot read goes to the team, and the contact is told a person will answer. */
const FILE_ONLY: ToTeam = { kind: 'handoff', reason: 'file_only', body: null };

/**
 * The bot's reply as it can go on the conversation's channel: an answer longer than the channel takes in a message
 * (an FAQ answer of up to 5,000 characters on Messenger's 2,000) would fail once paid for and leave the contact in
 * silence; the team answers it instead (`answer_too_long`), and the contact is told a person will.
 */
function fitting(reply: Exclude<BotReply, { kind: 'silent' }>, conversation: Conversation): Spoken {
  if (reply.kind === 'handoff' || !textTooLong(conversation.channel, reply.body)) return reply;
  return { kind: 'handoff', reason: 'answer_too_long', body: null };
}

async function speak(
  tx: Tx,
  gw: Engine,
  account: Account,
  contact: Contact,
  conversation: Conversation,
  campaign: Campaign,
  answer: BotAnswer,
  message: Message,
): Promise<void> {
  if (answer.reply.kind === 'silent') return;
  const reply = fitting(answer.reply, conversation);
  tx.afterCommit(() => metrics.botReplies.inc({ kind: reply.kind === 'reply' ? 'answer' : reply.kind }));
  if (reply.kind === 'handoff') return handToTeam(tx, gw, account, contact, conversation, campaign, reply, message);
  const sent = await sendBotAnswer(tx, gw, account, contact, conversation, campaign, {
    body: reply.body,
    question: message.body,
  });
  if (!sent) return;
  // Where the business never writes first, follow-ups count from the bot's answer: the lead who goes quiet is asked again.
  if (answersOnly(conversation.channel)) await scheduleFollowUp(tx, campaign, sent.conversation, 0, clockNow());
  if (reply.kind === 'reply' && reply.goalReached && !conversation.goalReachedAt) {
    await updateConversation(tx, sent.conversation, { goalReachedAt: now() });
    await recordStep(tx, 'goalReached', { accountId: account.id, campaignId: campaign.id, contactId: contact.id });
    await emitEvent(tx, account, 'goal_reached', {
      contactId: contact.id,
      conversationId: conversation.id,
      campaignId: campaign.id,
      goal: campaign.bot.goal,
      messageId: sent.message.id,
    });
  }
}

/** The bot hands the conversation to the team: every hand-off tells the contact, in the bot's own words, else the notice. */
async function handToTeam(
  tx: Tx,
  gw: Engine,
  account: Account,
  contact: Contact,
  conversation: Conversation,
  campaign: Campaign,
  reply: ToTeam,
  message: Message,
): Promise<void> {
  const notified = await tellHandoff(tx, gw, account, contact, conversation, campaign, {
    body: reply.body ?? null,
    answers: reply.questions !== undefined,
  });
  // A reply that answered some questions of a burst hands off the others: the team and the unanswered list get those.
  const questions = reply.questions ?? (message.body ? [message.body] : []);
  await handOff(tx, account, notified, reply.reason, questions.join('\n') || null);
  if (isUnanswered(reply.reason))
    for (const body of questions) await recordUnanswered(tx, campaign, { ...message, body });
}
