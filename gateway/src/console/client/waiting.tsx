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
 * The conversations waiting for the signed-in member's reply: theirs, and needing a reply
 * (GET /v1/conversations?assigneeId=me&needsReply=true), read again when the stream tells of a change to a
 * conversation, in a hidden tab too: the tab's title counts them.
 */
export function useWaiting(): Waiting | undefined {
  const [waiting, setWaiting] = useState<Waiting | undefined>(undefined);
  useLiveReload(async () => {
    const readAt = Date.now();
    const res = await get<PageOf<Conversation>>(`/v1/conversations?assigneeId=me&needsReply=true&limit=${MAX_PAGE_LIMIT}`);
    if (res.ok) setWaiting({ conversations: res.data!.data, more: res.data!.nextCursor !== null, readAt });
  }, [], { concerns: (e) => e.event.startsWith('conversation.'), whileHidden: true });
  return waiting;
}

/** How many, as the tab's title says it: "3", "200+" past one page, "" for none. */
export const waitingCount = (waiting: Waiting | undefined): string =>
  !waiting || waiting.conversations.length === 0 ? '' : `${waiting.conversations.length}${waiting.more ? '+' : ''}`;
