import { useEffect, useState } from 'preact/hooks';
import { CONTACT_SEARCH, phoneDigitsOf } from '../../../../api-contract.js';
import type { Contact, Conversation, PageOf } from '../../answers.js';
import { get } from '../../api.js';
import { useLatest } from '../../components/load.js';
import { ContactPanel } from '../contact/contact-panel.js';
import { ChannelName } from './channel.js';
import { contactName } from './labels.js';

const PAGE = 10;
/** How long typing pauses before the search goes: a search per word typed, not per key. */
const TYPING_MS = 300;

/** What a result holds once opened: the contact's conversations (one per channel), or the reason they are not shown. */
type Opened = { conversations: Conversation[] } | { error: string };

/** A phone number typed with too few digits to be found by: the API looked for them in names and IDs only. */
const shortPhone = (q: string) => {
  const digits = phoneDigitsOf(q);
  return digits !== null && digits.length > 0 && digits.length < CONTACT_SEARCH.phoneDigitsMin;
};
const PHONE_NEEDS = `a phone number is found by its last ${CONTACT_SEARCH.phoneDigitsMin} digits or more`;

/** What the results say: none or some, and why a phone number typed short was not looked for as one. */
function summary(q: string, count: number): string {
  if (!shortPhone(q)) return count === 0 ? `No contact matches “${q}”.` : `Contacts matching “${q}”:`;
  return count === 0
    ? `No contact has a name or an ID matching “${q}”: ${PHONE_NEEDS}.`
    : `Contacts whose name or ID matches “${q}” (${PHONE_NEEDS}):`;
}

/**
 * Finding a contact from the inbox (GET /v1/contacts?q=): by the start of a name or an email, the last digits of a
 * phone, or an external ID. A contact found leads to its conversation: the only one opens at once, several are
 * offered by channel, and a contact nobody wrote to yet says so; its Details open the contact's panel. A query too
 * short to look for is sent all the same: the API says what a search needs, and the box says it.
 */
export function ContactSearch(props: {
  admin: boolean;
  onOpen: (conversationId: string) => void;
  onChanged: () => void;
}) {
  const [text, setText] = useState('');
  const [found, setFound] = useState<(PageOf<Contact> & { q: string }) | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  // What the API said a query needs when it held too little to look for.
  const [needs, setNeeds] = useState<string | undefined>(undefined);
  const [opened, setOpened] = useState<Record<string, Opened>>({});
  const [details, setDetails] = useState<string | undefined>(undefined);
  // Only the latest search is shown: an earlier one may answer after it.
  const begin = useLatest();

  const search = async (q: string, cursor?: string) => {
    const fresh = begin();
    const res = await get<PageOf<Contact>>(
      `/v1/contacts?q=${encodeURIComponent(q)}&limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    if (!fresh()) return;
    const tooShort = res.status === 400 && res.problems?.find((p) => p.field === 'q');
    setNeeds(tooShort ? `Type more: a search ${tooShort.message}.` : undefined);
    setError(res.ok || tooShort ? undefined : res.error);
    if (!res.ok) {
      setFound(undefined);
      return;
    }
    setFound((before) => ({
      q,
      data: [...(cursor && before ? before.data : []), ...res.data!.data],
      nextCursor: res.data!.nextCursor,
    }));
  };
  useEffect(() => {
    const q = text.trim();
    if (!q) {
      begin();
      setFound(undefined);
      setError(undefined);
      setNeeds(undefined);
      return;
    }
    const timer = setTimeout(() => void search(q), TYPING_MS);
    return () => clearTimeout(timer);
  }, [text]);

  const open = async (contact: Contact) => {
    const res = await get<PageOf<Conversation>>(
      `/v1/conversations?contactId=${encodeURIComponent(contact.id)}&limit=20`,
    );
    const result: Opened = res.ok
      ? { conversations: res.data!.data }
      : { error: res.error ?? 'The conversations could not be read.' };
    setOpened((all) => ({ ...all, [contact.id]: result }));
    if ('conversations' in result && result.conversations.length === 1) props.onOpen(result.conversations[0]!.id);
  };

  return (
    <div class="contact-search" role="search" aria-label="Contacts">
      <div class="field">
        <label for="contact-search">Find a contact</label>
        <p class="hint" id="contact-search-hint">
          A name, an email, the last {CONTACT_SEARCH.phoneDigitsMin} digits or more of a phone, or an external ID.
        </p>
        <input
          id="contact-search"
          type="search"
          autocomplete="off"
          value={text}
          aria-describedby="contact-search-hint"
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && text.trim()) void search(text.trim());
          }}
        />
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {/* In the page before any answer: a screen reader does not read a live region that comes with its text. */}
      <p class="current contact-search-status" role="status">
        {needs ?? (found ? summary(found.q, found.data.length) : '')}
      </p>
      {found && (
        <div role="region" aria-label="Contacts found" class="contact-search-results">
          <ul class="inbox-items">
            {found.data.map((c) => {
              const result = opened[c.id];
              return (
                <li key={c.id}>
                  <div class="contact-found">
                    <button type="button" class="inbox-item" onClick={() => void open(c)}>
                      <span class="inbox-item-name">{contactName(c)}</span>
                      <span class="inbox-item-meta">
                        {[c.phone, c.email, ...Object.values(c.externalIds ?? {})].filter(Boolean).join(' · ')}
                      </span>
                    </button>
                    <button type="button" class="secondary" onClick={() => setDetails(c.id)}>
                      Details<span class="sr-only"> of {contactName(c)}</span>
                    </button>
                  </div>
                  {result && 'error' in result && (
                    <p class="error" role="alert">
                      {result.error}
                    </p>
                  )}
                  {result && 'conversations' in result && result.conversations.length === 0 && (
                    <p class="current">
                      No conversation with {contactName(c)} yet: it starts with a campaign’s opening message or their
                      first message.
                    </p>
                  )}
                  {result && 'conversations' in result && result.conversations.length > 1 && (
                    <ul class="contact-search-conversations" aria-label={`Conversations with ${contactName(c)}`}>
                      {result.conversations.map((conversation) => (
                        <li key={conversation.id}>
                          <button type="button" class="secondary" onClick={() => props.onOpen(conversation.id)}>
                            Open on <ChannelName conversation={conversation} />
                          </button>
                        </li>
                      ))}
                    </ul>
                  )}
                </li>
              );
            })}
          </ul>
          {details && (
            <ContactPanel
              id={details}
              admin={props.admin}
              onClose={() => setDetails(undefined)}
              onChanged={() => {
                // What was found may have changed name, merged away or been erased: the search is asked again.
                setOpened({});
                void search(found.q);
                props.onChanged();
              }}
            />
          )}
          {found.nextCursor && (
            <button type="button" class="secondary" onClick={() => void search(found.q, found.nextCursor!)}>
              Show more contacts
            </button>
          )}
        </div>
      )}
    </div>
  );
}
