import { Fragment } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { answersOnly, TEXT_LIMITS } from '../../../../api-contract.js';
import type { Contact, Conversation, Message, PageOf } from '../../answers.js';
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
import { RetryAllFailed } from './retry-all.js';
import { SaveAsFaq } from './save-faq.js';
import { Button } from '../../components/button.js';

/** Every message of the contact, oldest first (the API pages them), and of those the ones of this conversation. */
async function threadOf(conversation: Conversation): Promise<ApiResult<Message[]>> {
  const messages: Message[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < 50; n++) {
    const res: ApiResult<PageOf<Message>> = await get<PageOf<Message>>(
      `/v1/contacts/${encodeURIComponent(conversation.contactId)}/messages?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    if (!res.ok) return { ok: false, status: res.status, error: res.error };
    messages.push(...res.data!.data.filter((m) => m.conversationId === conversation.id));
    cursor = res.data!.nextCursor;
    if (!cursor) break;
  }
  return { ok: true, status: 200, data: messages };
}

/**
 * One conversation: its messages kept up to date (read again when the stream tells of a change to it), who of the
 * team has it, a reply as a team member on the conversation's channel, and the bot turned on or off. Whatever the
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
  const [messages, setMessages] = useState<Message[] | undefined>(undefined);
  // Each read of the thread: a message still being sent reads its delivery attempts again on each (see MessageItem).
  const [reads, setReads] = useState(0);
  const [error, setError] = useState<string | undefined>(undefined);
  const heading = useRef<HTMLHeadingElement>(null);
  // The contact's panel: open, or open over a contact just erased (closing it closes the thread, gone with them).
  const [panel, setPanel] = useState<'open' | 'erased' | undefined>(undefined);
  // Erased from this thread's panel, which says so until it is closed: the thread stays beneath it until then.
  const erasedHere = useRef(false);
  // What the contact wrote while the thread is open, told to a screen reader as it comes (seen, it needs no telling);
  // the messages of the first read are what the member opened the thread to read.
  const [news, setNews] = useState('');
  const known = useRef<Set<string> | undefined>(undefined);
  const load = async () => {
    const leftAt = turn();
    const res = await get<Conversation>(`/v1/conversations/${encodeURIComponent(props.id)}`);
    if (!res.ok) {
      // Gone (its contact erased or merged, here or elsewhere): nothing of it stays on the screen.
      if (res.status === 404 && !erasedHere.current) {
        setConversation(undefined);
        setMessages(undefined);
      }
      return setError(res.error);
    }
    const thread = await threadOf(res.data!);
    setError(thread.ok ? undefined : thread.error);
    show(res.data!, leftAt);
    if (thread.ok) {
      const before = known.current;
      known.current = new Set(thread.data!.map((m) => m.id));
      const fresh = before ? thread.data!.filter((m) => m.direction === 'incoming' && !before.has(m.id)) : [];
      if (fresh.length) setNews(fresh.map((m) => wrote(contactName(res.data!.contact), m)).join(' '));
      setMessages(thread.data);
      setReads((n) => n + 1);
    }
    if (res.data!.unread > 0 && document.visibilityState === 'visible') {
      const readAt = turn();
      const read = await call<Conversation>('POST', `/v1/conversations/${encodeURIComponent(props.id)}/read`);
      if (read.ok) show(read.data!, readAt);
      props.onChanged();
    }
  };
  const reloadThread = useLiveReload(load, [props.id], { concerns: (e) => e.data.conversationId === props.id });
  const arrived = conversation !== undefined;
  useEffect(() => {
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
      {conversation.contact?.optOut ? (
        <OptedOut optOut={conversation.contact.optOut} />
      ) : (
        <BotSwitch conversation={conversation} onChanged={reload} />
      )}
      <RetryAllFailed
        conversationId={conversation.id}
        label={`Retry the ${conversation.failed} failed ${conversation.failed === 1 ? 'message' : 'messages'}`}
        shown={conversation.failed > 0}
        onDone={reload}
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
      {messages && (
        <ol class="inbox-msgs">
          {messages.map((m) => (
            <MessageItem key={m.id} message={m} read={reads} onChanged={reload} />
          ))}
        </ol>
      )}
      {!conversation.contact?.optOut && (
        <ReplyForm conversation={conversation} onSend={() => acting(props.team.me, conversation.id)} onSent={reload} />
      )}
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
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    props.onSend();
    setNotSent(undefined);
    const reply = { body, conversationId: props.conversation.id };
    const path = `/v1/contacts/${encodeURIComponent(props.conversation.contactId)}/messages`;
    void sending.run(
      () => call<Message>('POST', path, reply, key.headers(reply)),
      (m) => (notSentWhy(m) ? '' : 'Reply sent.'),
      (m) => {
        // Stored all the same, in the thread: typed again it would be a second reply once the first is retried.
        key.made();
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
        required
        max={TEXT_LIMITS.teamMessage}
        hint={
          <>
            {sentAs(props.conversation)} Replying hands the conversation to your team: the bot stops answering here, and
            a conversation nobody has becomes yours.
            {answersOnly(props.conversation.channel) &&
              ' Meta takes replies within 24 hours of the contact’s last message; after that, up to 7 days, as a person’s reply (Meta’s HUMAN_AGENT tag); later, it is not sent.'}
            {props.conversation.channel === 'whatsapp' && ` ${whatsAppWindow(props.conversation)}`}
          </>
        }
      />
      <Button type="submit" class="primary" unavailable={sending.busy}>
        Send reply
      </Button>
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
