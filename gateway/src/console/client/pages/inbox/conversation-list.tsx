import type { Conversation } from '../../answers.js';
import { assigneeName, type Team } from './assignee.js';
import { ChannelName } from './channel.js';
import { AUTHOR, CONVERSATION_STATUS, contactName, noReplyFor, when } from './labels.js';

/**
 * Who wrote the last message, before its text: nobody for the contact's own, the bot as the bot ("Bot: "), a team
 * reply by its author's name ("Frank: "), whoever is signed in.
 */
function whoWrote(m: NonNullable<Conversation['lastMessage']>): string {
  if (m.direction === 'incoming') return '';
  if (m.author === 'team' && m.authorName) return `${m.authorName}: `;
  return `${AUTHOR[m.author ?? ''] ?? 'Sent'}: `;
}

/** A conversation's state in a few words: its status unless active, then what waits (unread or a reply), failures. */
function stateOf(c: Conversation): string {
  const state = c.status === 'active' ? [] : [CONVERSATION_STATUS[c.status].toLowerCase()];
  if (c.unread > 0) state.push(`${c.unread} unread`);
  else if (c.needsReply) state.push('needs reply');
  const overdue = noReplyFor(c);
  if (overdue) state.push(overdue.toLowerCase());
  if (c.failed > 0) state.push(`${c.failed} failed`);
  if (c.snoozedUntil) state.push(`snoozed until ${when(c.snoozedUntil)}`);
  if (c.labels.length > 0) state.push(`labels: ${c.labels.join(', ')}`);
  return state.join(', ');
}

/**
 * The conversations, in the order given: who, on which channel, the last message, whether a person has it
 * (hand-off) and which member of the team, whether it needs a reply (and the team was reminded: nobody answered
 * in time) and how many of the contact's messages are unread. Each is a button that opens its thread, named short for a screen reader going down the list (contact,
 * state, time: "Ruth, handed off, 2 unread, 10:42"): the rest of the row, hidden from the name, is its description.
 * The name is the button's own text, never an aria-label, so that what is seen is what voice control says.
 */
export function ConversationList(props: {
  items: Conversation[];
  team: Team;
  selected?: string;
  filtered: boolean;
  onOpen: (id: string) => void;
}) {
  if (props.items.length === 0) {
    return (
      <p class="current">
        {props.filtered
          ? 'No conversation matches these filters.'
          : "No conversations yet: they start with a campaign's opening message or a message from a contact."}
      </p>
    );
  }
  return (
    <ul class="inbox-items">
      {props.items.map((c) => (
        <li key={c.id}>
          <button
            type="button"
            class={`inbox-item${c.unread > 0 ? ' inbox-unread' : ''}`}
            data-conversation={c.id}
            aria-current={c.id === props.selected ? 'true' : undefined}
            onClick={() => props.onOpen(c.id)}
            aria-describedby={`${c.id}-meta${c.lastMessage ? ` ${c.id}-last` : ''}`}
          >
            <span class="inbox-item-top">
              <span class="inbox-item-name">{contactName(c.contact)}</span>
              <span class="sr-only">{stateOf(c) ? `, ${stateOf(c)}, ` : ', '}</span>
              <time dateTime={c.lastActivityAt}>{when(c.lastActivityAt)}</time>
            </span>
            <span class="inbox-item-meta" id={`${c.id}-meta`} aria-hidden="true">
              <ChannelName conversation={c} />
              {c.status !== 'active' && c.status !== 'handed_off' && <span>{CONVERSATION_STATUS[c.status]}</span>}
              {c.status === 'handed_off' && <span class="inbox-badge inbox-handoff">Handed off</span>}
              {c.unread > 0 && <span class="inbox-badge inbox-count">{c.unread} unread</span>}
              {c.needsReply && c.unread === 0 && <span class="inbox-badge inbox-count">Needs reply</span>}
              {noReplyFor(c) && <span class="inbox-badge inbox-failed">{noReplyFor(c)}</span>}
              {c.failed > 0 && <span class="inbox-badge inbox-failed">{c.failed} failed</span>}
              {c.snoozedUntil && <span class="inbox-badge">Snoozed until {when(c.snoozedUntil)}</span>}
              {c.labels.map((label) => (
                <span key={label} class="inbox-badge inbox-label">
                  {label}
                </span>
              ))}
              {c.assigneeId && <span class="inbox-assignee">Assigned to {assigneeName(props.team, c.assigneeId)}</span>}
            </span>
            {c.lastMessage && (
              <span class="inbox-item-last" id={`${c.id}-last`} aria-hidden="true">
                {whoWrote(c.lastMessage)}
                {c.lastMessage.body}
              </span>
            )}
          </button>
        </li>
      ))}
    </ul>
  );
}
