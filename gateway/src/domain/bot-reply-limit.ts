import { clockNow } from '../clock.js';
import type { Account } from './accounts.js';
import type { Conversation } from './conversations.js';
import type { Message } from './messages.js';

/**
 * The most answers the bot gives one conversation within a rolling hour (botReplyLimit of /v1/settings): past it, the
 * conversation goes to the team (`bot_reply_limit`). A conversation that runs away (a custom channel's bridge posting
 * the bot's replies back as the contact's, two bots answering each other, someone typing for the sake of it) would
 * otherwise be answered every few seconds, each answer paid for, until the credits run out. A burst is answered once
 * (LEADCHAT_BOT_DEBOUNCE), so a real lead does not come near 30 answers in an hour.
 */
export const DEFAULT_BOT_REPLY_LIMIT = 30;
export const MAX_BOT_REPLY_LIMIT = 1000;
const WINDOW_MS = 60 * 60_000;

/** The account's limit; null when it turned it off. Accounts saved before it existed have the default. */
export const botReplyLimitOf = (account: Pick<Account, 'botReplyLimit'>): number | null =>
  account.botReplyLimit === undefined ? DEFAULT_BOT_REPLY_LIMIT : account.botReplyLimit;

/** The bot's answers on the conversation within the last hour. */
const withinHour = (c: Pick<Conversation, 'botReplyTimes'>): string[] => {
  const since = new Date(clockNow() - WINDOW_MS).toISOString();
  return (c.botReplyTimes ?? []).filter((at) => at > since);
};

/** Whether another answer would take the conversation past the account's limit. */
export function botReplyLimitReached(account: Account, conversation: Pick<Conversation, 'botReplyTimes'>): boolean {
  const limit = botReplyLimitOf(account);
  return limit !== null && withinHour(conversation).length >= limit;
}

/**
 * The conversation's record of the bot's answers once `message` is among them: the times of those within the last
 * hour, the latest `limit` of them at most (all a count up to the limit needs), so it stays small whatever the traffic;
 * undefined when the message is no answer of the bot that goes (a failed or skipped one reached nobody).
 */
export function countedAnswer(
  account: Account,
  conversation: Pick<Conversation, 'botReplyTimes'>,
  message: Pick<Message, 'author' | 'status' | 'createdAt'>,
): Pick<Conversation, 'botReplyTimes'> | undefined {
  if (message.author !== 'bot' || message.status === 'failed' || message.status === 'skipped') return undefined;
  const limit = botReplyLimitOf(account);
  if (limit === null) return conversation.botReplyTimes?.length ? { botReplyTimes: null } : undefined;
  return { botReplyTimes: [...withinHour(conversation), message.createdAt].slice(-limit) };
}
