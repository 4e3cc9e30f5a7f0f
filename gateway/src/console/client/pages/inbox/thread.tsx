import { Fragment } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { answersOnly, TEXT_LIMITS } from '../../../../api-contract.js';
import type { Contact, Conversation, Message, Note, PageOf, RenderedSavedReply } from '../../answers.js';
import { call, get, type ApiResult } from '../../api.js';
import { useAction } from '../../components/action.js';
import { useIdempotencyKey } from '../../components/idempotency-key.js';
import { FormStatus } from '../../components/form.js';
import { LongText } from '../../components/long-text.js';
import { useLiveReload } from '../../live-reload.js';
import { acting } from '../../notify/own-actions.js';
import { ContactPanel } from '../contact/contact-panel.js';
import { AssigneePicker, type Team } from './assignee.js';
import { ChannelName } from './channel.js';
import {
  CONVERSATION_STATUS,
  contactName,
  externalIdLabel,
  handoffWhy,
  sentAs,
  whatsAppWindow,
  when,
} from './labels.js';
import { MessageItem } from './message.js';
import { byTime, NoteForm, NoteItem, notesPath } from './notes.js';
import { allPages } from '../lists/paged.js';
import { RetryAllFailed } from './retry-all.js';
import { SnoozeControl } from './snooze.js';
import { ConversationLabels } from './conversation-labels.js';
import { SavedReplyPicker } from './saved-reply-picker.js';
import { SaveAsFaq } from './save-faq.js';
import { Button } from '../../components/button.js';

/** Messages read at a time: the newest on opening, then each page of earlier ones asked for. */
const PAGE = 50;
/**
 * Pages of news read at most to reach the newest message shown: a thread that got more since (the tab asleep for a
 * day) is shown anew from its newest page, its earlier messages a click away as on opening.
 */
const CATCH_UP_PAGES = 10;

/** One page of the conversation's messages, newest first: the newest without a cursor, then those before. */
const pageOf = (conversation: Conversation, cursor: string | null) =>
  get<PageOf<Message>>(
    `/v1/contacts/${encodeURIComponent(conversation.contactId)}/messages?conversationId=${encodeURIComponent(conversation.id)}` +
      `&order=desc&limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
  );

/**
 * The conversation's newest messages down to one already shown (`shown`; without it, the newest page): newest
 * first, with the cursor of those before them, and whether they reached one shown.
 */
async function newsOf(
  conversation: Conversation,
  shown: ReadonlySet<string> | undefined,
): Promise<ApiResult<{ read: Message[]; cursor: string | null; met: boolean }>> {
  const read: Message[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < CATCH_UP_PAGES; n++) {
    const res: ApiResult<PageOf<Message>> = await pageOf(conversation, cursor);
    if (!res.ok) return { ok: false, status: res.status, error: res.error };
    read.push(...res.data!.data);
    cursor = res.data!.nextCursor;
    const met = Boolean(shown?.size) && res.data!.data.some((m) => shown!.has(m.id));
    if (met || !shown?.size || !cursor) return { ok: true, status: 200, data: { read, cursor, met } };
  }
  return { ok: true, status: 200, data: { read, cursor, met: false } };
}

/**
 * The thread as shown (oldest first) with the news read (newest first) merged in: from the oldest message read that
 * was shown, the thread is as read (new ones added, those changed as they are now, those gone left out); what is
 * shown before it stays.
 */
function merged(shown: Message[], read: Message[]): Message[] {
  const ascending = [...read].reverse();
  const at = new Map(shown.map((m, i) => [m.id, i]));
  const from = ascending.findIndex((m) => at.has(m.id));
  return [...shown.slice(0, at.get(ascending[from]!.id)), ...ascending.slice(from)];
}

/**
 * One conversation: its messages kept up to date (read again when the stream tells of a change to it) with the
 * team's notes among them (read again when the stream tells of one added or deleted), who of the team has it, a
 * reply as a team member on the conversation's channel, a note for the team, and the bot turned on or off. Whatever the
 * contact wrote is read once it is on screen (POST /v1/conversations/{id}/read).
 */
export function Thread(props: {
  id: string;
  team: Team;
  business: string;
  admin: boolean;
  onClose: () => void;
  onChanged: () => void;
}) {
  const [conversation, setConversation] = useState<Conversation | undefined>(undefined);
  // A read that left before a change was answered (an assignment) may answer after it: what it read is older, and
  // the change's answer stays. Each read takes a turn as it leaves, each change's answer as it comes.
  const turns = useRef({ taken: 0, shown: 0 });
  const turn = () => ++turns.current.taken;
  const show = (c: Conversation, at: number) => {
    if (at < turns.current.shown) return;
    turns.current.shown = at;
    setConversation(c);
  };
  // The messages shown, oldest first: the newest page, the earlier pages asked for above it, the news below. Kept
  // in a ref too: a read merges into what is shown when it answers, earlier messages added meanwhile included.
  const [messages, setShown] = useState<Message[] | undefined>(undefined);
  const shown = useRef<Message[] | undefined>(undefined);
  // Each time the thread is shown anew (a read that could not reach what was shown): a page of earlier messages
  // asked for before is of another thread then.
  const epoch = useRef(0);
  const setMessages = (list: Message[] | undefined, anew = false) => {
    shown.current = list;
    if (anew) epoch.current += 1;
    setShown(list);
  };
  // Where the earlier messages begin: the cursor of the page before the oldest shown (null: none before it).
  const [earlier, setEarlier] = useState<{ cursor: string | null; busy?: boolean; error?: string; told?: string }>({
    cursor: null,
  });
  const earlierCursor = useRef<string | null>(null);
  // Messages shown that changed (as the stream told, or as this page did): one older than the news a read reaches
  // is read by itself.
  const changed = useRef(new Set<string>());
  // Each read of the thread: a message still being sent reads its delivery attempts again on each (see MessageItem).
  const [reads, setReads] = useState(0);
  const [error, setError] = useState<string | undefined>(undefined);
  const heading = useRef<HTMLHeadingElement>(null);
  const list = useRef<HTMLOListElement>(null);
  // The panel of the contact: open, or open over a contact just erased (closing it closes the thread, gone with them).
  const [panel, setPanel] = useState<'open' | 'erased' | undefined>(undefined);
  // Erased from this thread's panel, which says so until it is closed: the thread stays beneath it until then.
  const erasedHere = useRef(false);
  // What the contact wrote while the thread is open, told to a screen reader as it comes (seen, it needs no telling);
  // the messages of the first read are what the member opened the thread to read.
  const [news, setNews] = useState('');
  // The team's notes, oldest first: read with each read of the thread (the stream tells of a note added or deleted as
  // of any change to the conversation), a few at most, and after a note is added or deleted here.
  const [notes, setNotes] = useState<Note[]>([]);
  const readNotes = async () => {
    const { items, error } = await allPages<Note>(notesPath(props.id));
    if (!error) setNotes(items);
  };
  const load = async () => {
    const leftAt = turn();
    const told = [...changed.current];
    changed.current.clear();
    const notesRead = readNotes();
    const res = await get<Conversation>(`/v1/conversations/${encodeURIComponent(props.id)}`);
    if (!res.ok) {
      // Gone (its contact erased or merged, here or elsewhere): nothing of it stays on the screen.
      if (res.status === 404 && !erasedHere.current) {
        setConversation(undefined);
        setMessages(undefined, true);
      }
      return setError(res.error);
    }
    // Only what is new since the newest message shown, and the changes among the latest: never the whole history.
    const before = shown.current;
    const known = before && new Set(before.map((m) => m.id));
    const thread = await newsOf(res.data!, known);
    setError(thread.ok ? undefined : thread.error);
    show(res.data!, leftAt);
    if (thread.ok) {
      const { read, cursor, met } = thread.data!;
      let next: Message[];
      if (met) next = merged(shown.current!, read);
      else {
        next = [...read].reverse();
        earlierCursor.current = cursor;
        setEarlier({ cursor });
      }
      const fresh = known ? next.filter((m) => m.direction === 'incoming' && !known.has(m.id)) : [];
      if (fresh.length) setNews(fresh.map((m) => wrote(contactName(res.data!.contact), m)).join(' '));
      setMessages(next, !met);
      // Changed where the news did not reach: read each as it is now.
      const reached = new Set(read.map((m) => m.id));
      const older = told.filter((id) => !reached.has(id) && next.some((m) => m.id === id));
      const now = await Promise.all(older.map((id) => get<Message>(`/v1/messages/${encodeURIComponent(id)}`)));
      const fresher = new Map(now.flatMap((r) => (r.ok ? [[r.data!.id, r.data!] as const] : [])));
      if (fresher.size) setMessages(shown.current?.map((m) => fresher.get(m.id) ?? m));
      setReads((n) => n + 1);
    } else told.forEach((id) => changed.current.add(id));
    if (res.data!.unread > 0 && document.visibilityState === 'visible') {
      const readAt = turn();
      const read = await call<Conversation>('POST', `/v1/conversations/${encodeURIComponent(props.id)}/read`);
      if (read.ok) show(read.data!, readAt);
      props.onChanged();
    }
    await notesRead;
  };
  // The page of messages before the oldest shown, added above them: what the reader sees stays where it is on the
  // screen, and the focus on the control (on the first message once there are no more).
  const kept = useRef<{ first: Element | null; top: number; last: boolean } | undefined>(undefined);
  const readEarlier = async (c: Conversation) => {
    const cursor = earlierCursor.current;
    if (!cursor || earlier.busy) return;
    const at = epoch.current;
    setEarlier({ cursor, busy: true });
    const res = await pageOf(c, cursor);
    if (at !== epoch.current) return;
    if (!res.ok) return setEarlier({ cursor, error: res.error });
    const first = list.current?.firstElementChild ?? null;
    const { data, nextCursor } = res.data!;
    kept.current = { first, top: first?.getBoundingClientRect().top ?? 0, last: !nextCursor };
    const now = shown.current ?? [];
    const ids = new Set(now.map((m) => m.id));
    const added = [...data].reverse().filter((m) => !ids.has(m.id));
    earlierCursor.current = nextCursor;
    setEarlier({
      cursor: nextCursor,
      told: `${added.length} earlier ${added.length === 1 ? 'message' : 'messages'} shown${nextCursor ? '' : ', from the first'}.`,
    });
    setMessages([...added, ...now]);
  };
  useLayoutEffect(() => {
    const keep = kept.current;
    if (!keep) return;
    kept.current = undefined;
    if (keep.first?.isConnected) window.scrollBy(0, keep.first.getBoundingClientRect().top - keep.top);
    if (keep.last && (document.activeElement === document.body || document.activeElement === null))
      (list.current?.firstElementChild as HTMLElement | null)?.focus({ preventScroll: true });
  }, [messages]);
  const reloadThread = useLiveReload(load, [props.id], {
    concerns: (e) => {
      if (e.data.conversationId !== props.id) return false;
      if (e.data.messageId) changed.current.add(e.data.messageId);
      return true;
    },
  });
  const arrived = conversation !== undefined;
  useLayoutEffect(() => {
    if (arrived) heading.current?.focus();
  }, [arrived]);

  if (!conversation) {
    return (
      <section class="panel inbox-thread" aria-label="Conversation">
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : (
          <p role="status">Loading…</p>
        )}
      </section>
    );
  }
  const reload = () => {
    reloadThread();
    props.onChanged();
  };
  const name = contactName(conversation.contact);
  return (
    <section class="panel inbox-thread" aria-labelledby="thread-heading">
      <button type="button" class="secondary inbox-back" onClick={props.onClose}>
        All conversations
      </button>
      <h2 id="thread-heading" ref={heading} tabIndex={-1}>
        {name}
      </h2>
      <button type="button" class="secondary" onClick={() => setPanel('open')}>
        Contact details
      </button>
      {panel && (
        <ContactPanel
          id={conversation.contactId}
          admin={props.admin}
          onClose={() => (panel === 'erased' ? props.onClose() : setPanel(undefined))}
          onChanged={(change) => {
            if (change === 'erased') {
              erasedHere.current = true;
              setPanel('erased');
            }
            reload();
          }}
        />
      )}
      <dl class="facts inbox-facts">
        <dt>Channel</dt>
        <dd>
          <ChannelName conversation={conversation} />
        </dd>
        <dt>Status</dt>
        <dd>
          {conversation.status === 'handed_off' ? (
            <span class="inbox-badge inbox-handoff">Handed off</span>
          ) : (
            CONVERSATION_STATUS[conversation.status]
          )}
        </dd>
        {conversation.status === 'handed_off' && conversation.handoff && (
          <>
            <dt>Why</dt>
            <dd class="inbox-handoff-why">{handoffWhy(conversation.handoff)}</dd>
          </>
        )}
        {conversation.contact?.phone && (
          <>
            <dt>Phone</dt>
            <dd>{conversation.contact.phone}</dd>
          </>
        )}
        {conversation.contact?.fromId && (
          <>
            <dt>Contact ID</dt>
            <dd>{conversation.contact.fromId}</dd>
          </>
        )}
        {Object.entries(conversation.contact?.externalIds ?? {}).map(([label, id]) => (
          <Fragment key={label}>
            <dt>ID on {externalIdLabel(label)}</dt>
            <dd>{id}</dd>
          </Fragment>
        ))}
      </dl>
      <AssigneePicker
        conversation={conversation}
        team={props.team}
        onChanged={(c) => {
          show(c, turn());
          props.onChanged();
        }}
      />
      <SnoozeControl
        conversation={conversation}
        me={props.team.me}
        onChanged={(c) => {
          show(c, turn());
          props.onChanged();
        }}
      />
      <ConversationLabels
        conversation={conversation}
        onChanged={(c) => {
          show(c, turn());
          props.onChanged();
        }}
      />
      {conversation.contact?.optOut ? (
        <OptedOut optOut={conversation.contact.optOut} />
      ) : (
        <BotSwitch conversation={conversation} onChanged={reload} />
      )}
      <RetryAllFailed
        conversationId={conversation.id}
        label={`Retry the ${conversation.failed} failed ${conversation.failed === 1 ? 'message' : 'messages'}`}
        shown={conversation.failed > 0}
        onDone={() => {
          shown.current?.forEach((m) => m.status === 'failed' && changed.current.add(m.id));
          reload();
        }}
      />
      <h3>Messages</h3>
      <p class="sr-only" role="status">
        {news}
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {messages && messages.length === 0 && <p class="current">No messages yet.</p>}
      {messages && (earlier.cursor || earlier.told) && (
        <div class="inbox-earlier">
          {earlier.cursor && (
            <Button
              type="button"
              class="secondary"
              unavailable={earlier.busy}
              onClick={() => void readEarlier(conversation)}
            >
              Show earlier messages
            </Button>
          )}
          <p class="sr-only" role="status">
            {earlier.told}
          </p>
          {earlier.error && (
            <p class="error" role="alert">
              {earlier.error}
            </p>
          )}
        </div>
      )}
      {messages && (
        <ol class="inbox-msgs" ref={list}>
          {byTime(messages, notes, earlier.cursor !== null).map((item) =>
            'note' in item ? (
              <NoteItem
                key={item.note.id}
                note={item.note}
                deletable={props.admin || item.note.authorId === props.team.me}
                onDeleted={() => void readNotes()}
              />
            ) : (
              <MessageItem
                key={item.message.id}
                message={item.message}
                read={reads}
                onChanged={() => {
                  changed.current.add(item.message.id);
                  reload();
                }}
              />
            ),
          )}
        </ol>
      )}
      {!conversation.contact?.optOut && (
        <ReplyForm conversation={conversation} onSend={() => acting(props.team.me, conversation.id)} onSent={reload} />
      )}
      <NoteForm conversationId={conversation.id} onAdded={() => void readNotes()} />
      {props.admin && messages && (
        <SaveAsFaq
          conversation={conversation}
          messages={messages}
          names={{
            contact: [
              conversation.contact?.firstName,
              conversation.contact?.lastName,
              [conversation.contact?.firstName, conversation.contact?.lastName].filter(Boolean).join(' '),
            ],
            team: [...messages.map((m) => m.authorName), ...props.team.members.map((m) => m.name)],
            business: [props.business],
          }}
        />
      )}
    </section>
  );
}

/** A message of the contact's as a screen reader is told it: "Ruth wrote: Can I book?", or that they sent a file. */
const wrote = (name: string, m: Message) =>
  m.body ? `${name} wrote: ${m.body}` : `${name} sent ${m.media ? 'a file' : 'a message'}.`;

/** A contact who opted out gets nothing, from the bot or the team, until they write START: the API refuses a reply. */
function OptedOut(props: { optOut: NonNullable<Contact['optOut']> }) {
  return (
    <p class="warning inbox-opted-out" role="status">
      This contact opted out (“{props.optOut.keyword.toUpperCase()}”, {when(props.optOut.at)}): nothing is sent to them,
      by the bot or by your team, until they write START.
    </p>
  );
}

/** POST /v1/contacts/{id}/bot: the API turns the bot on or off for every conversation of the contact. */
function BotSwitch(props: { conversation: Conversation; onChanged: () => void }) {
  const switching = useAction();
  const active = props.conversation.bot.active;
  const toggle = () =>
    switching.run(
      () => call('POST', `/v1/contacts/${encodeURIComponent(props.conversation.contactId)}/bot`, { active: !active }),
      active ? 'The bot is off: your team answers this contact.' : 'The bot is on again for this contact.',
      props.onChanged,
    );
  return (
    <div class="inbox-bot">
      <p>{active ? 'The bot answers this contact.' : 'The bot is off: your team answers this contact.'}</p>
      <Button type="button" class="secondary" unavailable={switching.busy} onClick={() => void toggle()}>
        {active ? 'Turn the bot off' : 'Turn the bot on'}
      </Button>
      <FormStatus error={switching.error} done={switching.done} />
    </div>
  );
}

/**
 * A team member's reply on the conversation's channel; the API stops the bot there, as a person has taken over. Each
 * reply goes with an Idempotency-Key kept until it is sent: sent again after an answer that never arrived (the
 * connection dropped, the gateway restarted), it reaches the contact once.
 */
function ReplyForm(props: { conversation: Conversation; onSend: () => void; onSent: () => void }) {
  const sending = useAction({ body: 'Reply as your team' });
  const [body, setBody] = useState('');
  const [notSent, setNotSent] = useState<string | undefined>(undefined);
  const key = useIdempotencyKey();
  const seen = useRef<{ body: string; assigneeId: string | null } | undefined>(undefined);
  const box = useRef<HTMLTextAreaElement>(null);
  // The saved replies' picker: open, by its button or by "/" typed in the empty box (given back if it is closed).
  const [picking, setPicking] = useState<{ typed: string } | undefined>(undefined);
  const [placed, setPlaced] = useState<{ caret: number; told: string } | undefined>(undefined);
  useLayoutEffect(() => {
    if (!placed || !box.current) return;
    box.current.focus();
    box.current.setSelectionRange(placed.caret, placed.caret);
  }, [placed]);
  const closePicker = (typed: string, back: boolean) => {
    setPicking(undefined);
    if (typed) setBody(typed);
    if (back) setPlaced({ caret: typed ? typed.length : (box.current?.selectionStart ?? body.length), told: '' });
  };
  // Filled in for the contact, it goes where the caret was (into an empty box, it is the reply), to read and edit.
  const insert = (reply: RenderedSavedReply) => {
    const text = reply.renderedText;
    const from = box.current?.selectionStart ?? body.length;
    const to = box.current?.selectionEnd ?? body.length;
    setBody(body.slice(0, from) + text + body.slice(to));
    setPicking(undefined);
    setPlaced({
      caret: from + text.length,
      told: `“${reply.name}” is in the reply box, filled in for this contact: read it, then send it.`,
    });
  };
  const onBoxKey = (e: KeyboardEvent) => {
    if (e.key !== '/' || body !== '' || e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
    e.preventDefault();
    setPicking({ typed: '/' });
  };
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    props.onSend();
    setNotSent(undefined);
    // Only while nobody else took it since it was read: a colleague answering meanwhile is told, not doubled. Who
    // was seen stays that of the reply's first sending, so that one sent again after a lost answer is the same
    // request, though the reply itself made the conversation ours meanwhile.
    if (seen.current?.body !== body) seen.current = { body, assigneeId: props.conversation.assigneeId ?? null };
    const reply = { body, conversationId: props.conversation.id, expectedAssigneeId: seen.current.assigneeId };
    const path = `/v1/contacts/${encodeURIComponent(props.conversation.contactId)}/messages`;
    void sending.run(
      async () => {
        const res = await call<Message>('POST', path, reply, key.headers(reply));
        // Told who has it now: sent again, the reply is meant for them to see too.
        if (res.code === 'ASSIGNEE_CHANGED') seen.current = undefined;
        return res;
      },
      (m) => (notSentWhy(m) ? '' : 'Reply sent.'),
      (m) => {
        // Stored all the same, in the thread: typed again it would be a second reply once the first is retried.
        key.made();
        seen.current = undefined;
        setBody('');
        setNotSent(notSentWhy(m));
        props.onSent();
      },
    );
  };
  return (
    <form class="inbox-reply" onSubmit={submit}>
      <LongText
        id="reply-body"
        label="Reply as your team"
        value={body}
        onChange={setBody}
        onKeyDown={onBoxKey}
        textareaRef={box}
        required
        max={TEXT_LIMITS.teamMessage}
        hint={
          <>
            {sentAs(props.conversation)} Replying hands the conversation to your team: the bot stops answering here, and
            a conversation nobody has becomes yours.
            {answersOnly(props.conversation.channel) &&
              ' Meta takes replies within 24 hours of the contact’s last message; after that, up to 7 days, as a person’s reply (Meta’s HUMAN_AGENT tag); later, it is not sent.'}
            {props.conversation.channel === 'whatsapp' && ` ${whatsAppWindow(props.conversation)}`} Type / in the empty
            box, or press Saved replies, to put in one of your team’s saved replies.
          </>
        }
      />
      <div class="inbox-reply-actions">
        <Button type="submit" class="primary" unavailable={sending.busy}>
          Send reply
        </Button>
        <SavedReplyPicker
          conversationId={props.conversation.id}
          opened={picking}
          onOpen={() => setPicking({ typed: '' })}
          onClose={closePicker}
          onChosen={insert}
        />
      </div>
      <p class="sr-only" role="status">
        {placed?.told ?? ''}
      </p>
      <FormStatus error={sending.error ?? notSent} done={sending.done} />
    </form>
  );
}

/**
 * A reply the API stored without sending it (answered 201 all the same: it is in the thread, and kept for a retry):
 * nothing reached the contact, which the person who pressed Send must hear where they pressed it, with why and what
 * is left to do. Undefined for a reply on its way.
 */
function notSentWhy(m: Message): string | undefined {
  const why = `${m.error ?? 'The gateway did not send it'}${m.errorCode ? ` (${m.errorCode})` : ''}`;
  if (m.status === 'failed')
    return `Not sent: ${why}. Your reply is in the thread, Failed: its Retry sends it once this is put right.`;
  if (m.status === 'skipped') return `Not sent: ${why}. Nothing went to the contact.`;
  return undefined;
}
