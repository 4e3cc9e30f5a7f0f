import type { ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';

import { conversationDetails, conversationLabel } from '../shared/labels';
import type { Conversation } from '../transport/answers';
import { leadChatRequest } from '../transport/request';
import { contactPage } from './contactSearch';
import { DROPDOWN_PAGE, DROPDOWN_RETRY } from './searchRecords';

/** Contacts searched per page of the dropdown: each costs one more request, for its conversations. */
const CONTACTS_PER_PAGE = 10;

async function conversationsPage(
  this: ILoadOptionsFunctions,
  qs: Record<string, string | number>,
): Promise<{ conversations: Array<Partial<Conversation>>; nextCursor?: string }> {
  const response = await leadChatRequest.call(this, {
    method: 'GET',
    path: '/conversations',
    qs,
    retry: DROPDOWN_RETRY,
  });
  const { data, nextCursor } = response.body as { data?: unknown; nextCursor?: unknown };
  return {
    conversations: Array.isArray(data) ? (data as Array<Partial<Conversation>>) : [],
    ...(typeof nextCursor === 'string' && nextCursor ? { nextCursor } : {}),
  };
}

function itemOf(conversation: Partial<Conversation>): INodeListSearchItems {
  return {
    name: conversationLabel(conversation),
    value: String(conversation.id),
    description: conversationDetails(conversation),
  };
}

/**
 * The Conversation dropdown. Before a search: the inbox, newest activity first, a page at a time. A search finds
 * the contacts on the server (as the Contact dropdown does) and shows their conversations, one per channel; the
 * pagination token is the contact search's.
 */
export async function searchConversations(
  this: ILoadOptionsFunctions,
  filter?: string,
  paginationToken?: string,
): Promise<INodeListSearchResult> {
  const q = (filter ?? '').trim();
  if (!q) {
    const { conversations, nextCursor } = await conversationsPage.call(this, {
      limit: DROPDOWN_PAGE,
      ...(paginationToken ? { cursor: paginationToken } : {}),
    });
    return {
      results: conversations.filter((c) => c.id !== undefined).map(itemOf),
      ...(nextCursor ? { paginationToken: nextCursor } : {}),
    };
  }
  const { contacts, nextCursor } = await contactPage.call(this, q, CONTACTS_PER_PAGE, paginationToken);
  const results: INodeListSearchItems[] = [];
  for (const contact of contacts) {
    if (contact.id === undefined) continue;
    const { conversations } = await conversationsPage.call(this, {
      contactId: String(contact.id),
      limit: DROPDOWN_PAGE,
    });
    results.push(...conversations.filter((c) => c.id !== undefined).map(itemOf));
  }
  return { results, ...(nextCursor ? { paginationToken: nextCursor } : {}) };
}
