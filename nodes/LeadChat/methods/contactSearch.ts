import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { contactDetails, contactLabel } from '../shared/labels';
import type { Contact } from '../transport/answers';
import { leadChatRequest } from '../transport/request';
import { DROPDOWN_PAGE, DROPDOWN_RETRY } from './searchRecords';

/** One page of a contact search (GET /contacts?q=): the contacts and the cursor of the next page. */
export async function contactPage(
  this: ILoadOptionsFunctions,
  q: string,
  limit: number,
  cursor?: string,
): Promise<{ contacts: Array<Partial<Contact>>; nextCursor?: string }> {
  const response = await leadChatRequest.call(this, {
    method: 'GET',
    path: '/contacts',
    qs: { q, limit, ...(cursor ? { cursor } : {}) },
    // A query the server cannot search yet (one letter, three digits) finds nothing until more is typed.
    accept: [400],
    retry: DROPDOWN_RETRY,
  });
  if (response.statusCode === 400) return { contacts: [] };
  const { data, nextCursor } = response.body as { data?: unknown; nextCursor?: unknown };
  return {
    contacts: Array.isArray(data) ? (data as Array<Partial<Contact>>) : [],
    ...(typeof nextCursor === 'string' && nextCursor ? { nextCursor } : {}),
  };
}

/**
 * The Contact dropdown: the contacts the server finds for what is typed (the start of a name's word or of the
 * email, the last digits of the phone, an external ID), a page at a time. Nothing is listed before a search: an
 * account's contacts are too many to scroll.
 */
export async function searchContacts(
  this: ILoadOptionsFunctions,
  filter?: string,
  paginationToken?: string,
): Promise<INodeListSearchResult> {
  const q = (filter ?? '').trim();
  if (!q) return { results: [] };
  const { contacts, nextCursor } = await contactPage.call(this, q, DROPDOWN_PAGE, paginationToken);
  return {
    results: contacts
      .filter((contact) => contact.id !== undefined)
      .map((contact) => ({
        name: contactLabel(contact),
        value: String(contact.id),
        description: contactDetails(contact),
      })),
    ...(nextCursor ? { paginationToken: nextCursor } : {}),
  };
}
