import { useEffect, useRef, useState } from 'preact/hooks';
import type { Contact, Conversation, PageOf } from '../../answers.js';
import { get } from '../../api.js';
import { ContactPanel } from '../contact/contact-panel.js';
import { ChannelName } from './channel.js';
import { contactName } from './labels.js';

const PAGE = 10;
/** How long typing pauses before the search goes: a search per word typed, not per key. */
const TYPING_MS = 300;

/** What a result holds once opened: the contact's conversations (one per channel), or the reason they are not shown. */
type Opened = { conversations: Conversation[] } | { error: string };

/**
 * Finding a contact from the inbox (GET /v1/contacts?q=): by the start of a name or an email, the last digits of a
 * phone, or an external ID. A contact found leads to its conversation: the only one opens at once, several are
 * offered by channel, and a contact nobody wrote to yet says so; its Details open the contact's panel.
 */
export function ContactSearch(props: { admin: boolean; onOpen: (conversationId: string) => void; onChanged: () => void }) {
  const [text, setText] = useState('');
  const [found, setFound] = useState<PageOf<Contact> & { q: string } | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [opened, setOpened] = useState<Record<string, Opened>>({});
  const [details, setDetails] = useState<string | undefined>(undefined);
  // Only the latest search is shown: an earlier one may answer after it.
  const searches = useRef(0);

  const search = async (q: string, cursor?: string) => {
    const n = ++searches.current;
    const res = await get<PageOf<Contact>>(`/v1/contacts?q=${encodeURIComponent(q)}&limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (n !== searches.current) return;
    setError(res.ok ? undefined : res.error);
    if (!res.ok) return;
    setFound((before) => ({ q, data: [...(cursor && before ? before.data : []), ...res.data!.data], nextCursor: res.data!.nextCursor }));
  };
  useEffect(() => {
    const q = text.trim();
    if (q.length < 2) {
      searches.current++;
      setFound(undefined);
      setError(undefined);
      return;
    }
    const timer = setTimeout(() => void search(q), TYPING_MS);
    return () => clearTimeout(timer);
  }, [text]);

  const open = async (contact: Contact) => {
    const res = await get<PageOf<Conversation>>(`/v1/conversations?contactId=${encodeURIComponent(contact.id)}&limit=20`);
    const result: Opened = res.ok ? { conversations: res.data!.data } : { error: res.error ?? 'The conversations could not be read.' };
    setOpened((all) => ({ ...all, [contact.id]: result }));
    if ('conversations' in result && result.conversations.length === 1) props.onOpen(result.conversations[0]!.id);
  };

  return (
    <div class="contact-search" role="search" aria-label="Contacts">
      <div class="field">
        <label for="contact-search">Find a contact</label>
        <p class="hint" id="contact-search-hint">A name, an email, the last digits of a phone, or an external ID.</p>
        <input id="contact-search" type="search" autocomplete="off" value={text} aria-describedby="contact-search-hint"
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && text.trim().length >= 2) void search(text.trim());
          }} />
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      {found && (
        <div role="region" aria-label="Contacts found" class="contact-search-results">
          <p class="current" role="status">{found.data.length === 0 ? `No contact matches “${found.q}”.` : `Contacts matching “${found.q}”:`}</p>
          <ul class="inbox-items">
            {found.data.map((c) => {
              const result = opened[c.id];
              return (
                <li key={c.id}>
                  <div class="contact-found">
                    <button type="button" class="inbox-item" onClick={() => void open(c)}>
                      <span class="inbox-item-name">{contactName(c)}</span>
                      <span class="inbox-item-meta">{[c.phone, c.email, ...Object.values(c.externalIds ?? {})].filter(Boolean).join(' · ')}</span>
                    </button>
                    <button type="button" class="secondary" onClick={() => setDetails(c.id)}>Details<span class="sr-only"> of {contactName(c)}</span></button>
                  </div>
                  {result && 'error' in result && <p class="error" role="alert">{result.error}</p>}
                  {result && 'conversations' in result && result.conversations.length === 0 && (
                    <p class="current">No conversation with {contactName(c)} yet: it starts with a campaign’s opening message or their first message.</p>
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
          {details && <ContactPanel id={details} admin={props.admin} onClose={() => setDetails(undefined)} onChanged={() => {
            // What was found may have changed name, merged away or been erased: the search is asked again.
            setOpened({});
            void search(found.q);
            props.onChanged();
          }} />}
          {found.nextCursor && <button type="button" class="secondary" onClick={() => void search(found.q, found.nextCursor!)}>Show more contacts</button>}
        </div>
      )}
    </div>
  );
}
