import { MAX_PAGE_LIMIT } from '../../api-contract.js';
import { useState } from 'preact/hooks';
import type { Conversation, PageOf } from './answers.js';
import { get } from './api.js';
import { useLiveReload } from './live-reload.js';

/** The conversations waiting for the member's reply, as one read found them. */
export interface Waiting {
  conversations: Conversation[];
  /** More than one page of them. */
  more: boolean;
  /** When the read began (Date.now()): it holds every change the stream told before then. */
  readAt: number;
}

/**
 * Whether a conversation nobody has waits for a person: a contact's message no bot will answer (handed off, the bot
 * turned off here or in its campaign, the campaign paused; or left by the bot while it was off, on again since). One
 * the bot still answers needs a reply only until the bot's answer, a moment later: nobody is called to it, and it
 * comes in when the bot hands it over.
 */
const forAPerson = (c: Conversation) => !c.bot.answers || c.botLeft;

const read = (filter: string) =>
  get<PageOf<Conversation>>(`/v1/conversations?${filter}&needsReply=true&limit=${MAX_PAGE_LIMIT}`);

/**
 * The conversations waiting for the signed-in member's reply: theirs that need a reply
 * (GET /v1/conversations?assigneeId=me&needsReply=true), those that need one and nobody has
 * (assigneeId=none), which any member may take, and those whose contact still waits for a person after the team was
 * reminded (reminded=true), whoever has them: nobody answered in time, so every member hears of it. Read again when
 * the stream tells of a change to a conversation, or of a campaign whose bot answers no longer or again (which
 * changes no conversation, but which of them wait for a person), in a hidden tab too: the tab's title counts them.
 */
export function useWaiting(): Waiting | undefined {
  const [waiting, setWaiting] = useState<Waiting | undefined>(undefined);
  useLiveReload(
    async () => {
      const readAt = Date.now();
      const [mine, nobodys, reminded] = await Promise.all([
        read('assigneeId=me'),
        read('assigneeId=none'),
        read('reminded=true'),
      ]);
      if (!mine.ok || !nobodys.ok || !reminded.ok) return;
      const found = [...mine.data!.data, ...nobodys.data!.data.filter(forAPerson)];
      const others = reminded.data!.data.filter((c) => !found.some((f) => f.id === c.id));
      setWaiting({
        conversations: [...found, ...others],
        more: [mine, nobodys, reminded].some((res) => res.data!.nextCursor !== null),
        readAt,
      });
    },
    [],
    { concerns: (e) => e.event.startsWith('conversation.') || e.event === 'campaign.updated', whileHidden: true },
  );
  return waiting;
}

/** How many, as the tab's title says it: "3", "200+" past one page, "" for none. */
export const waitingCount = (waiting: Waiting | undefined): string =>
  !waiting || waiting.conversations.length === 0 ? '' : `${waiting.conversations.length}${waiting.more ? '+' : ''}`;
