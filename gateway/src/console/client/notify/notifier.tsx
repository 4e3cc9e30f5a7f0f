import { useEffect, useRef } from 'preact/hooks';
import type { Conversation, Message } from '../answers.js';
import { get } from '../api.js';
import { subscribe } from '../live.js';
import { navigate } from '../router.js';
import { contactName, noReplyFor } from '../pages/inbox/labels.js';
import type { Waiting } from '../waiting.js';
import { firstToTell } from './once.js';
import { actedOn } from './own-actions.js';
import { notifying } from './setting.js';
import { chime } from './sound.js';

const INBOX_PATH = '/console/inbox';

const showing = (conversationId: string) =>
  document.visibilityState === 'visible' &&
  location.pathname === INBOX_PATH &&
  new URLSearchParams(location.search).get('c') === conversationId;

/**
 * What the contact wrote, for the notification's text: their latest message when it is the conversation's last,
 * else the one the stream told of, else the question that handed the conversation over. Never the gateway's own
 * words that may follow it (the hand-off notice, an acknowledgement): they tell the member nothing.
 */
async function contactWords(c: Conversation, messageId: string | undefined): Promise<string> {
  const last = c.lastMessage;
  let words = last?.direction === 'incoming' ? last.body : undefined;
  if (!words && messageId) {
    const res = await get<Message>(`/v1/messages/${encodeURIComponent(messageId)}`);
    if (res.ok) words = res.data!.body;
  }
  return words || c.handoff?.message || 'Open the conversation to read it.';
}

/**
 * A desktop notification (when the browser allows them) and the chime; a click opens the conversation. Its text is
 * the contact's words, unless `text` says otherwise.
 */
async function tell(c: Conversation, title: string, messageId?: string, text?: string): Promise<void> {
  if (showing(c.id) || !(await firstToTell(c.id))) return;
  chime();
  if (!('Notification' in window) || Notification.permission !== 'granted') return;
  const body = text ?? (await contactWords(c, messageId));
  let shown: Notification;
  try {
    shown = new Notification(title, { body, tag: `leadchat-${c.id}` });
  } catch {
    // A browser that shows notifications only through a service worker (Chrome on Android): the sound was enough.
    return;
  }
  shown.onclick = () => {
    window.focus();
    shown.close();
    navigate(`${INBOX_PATH}?c=${encodeURIComponent(c.id)}`);
  };
}

/** Heard on the stream, with when (Date.now()): a read begun later holds it. */
interface Heard {
  at: number;
  messageId?: string;
}

/** What the read before knew of a conversation: its last message when the contact's, and when the team was reminded. */
interface Known {
  contactsLast: string | undefined;
  remindedAt: string | null;
}

/**
 * Tells the member, when they turned notifications on (setting.tsx), of what waits for them: a conversation
 * assigned to them, a contact writing in one of theirs or in one nobody has, a conversation coming in for a
 * person (the bot handed it over, nobody has it), and a contact nobody answered in time (the team was reminded),
 * whoever has them, and a snoozed conversation of theirs (or nobody's) back at its time. Not what they did
 * themselves, nor what a tab of theirs shows.
 *
 * The conversations `waiting` (waiting.tsx) decide: a conversation there is told when the stream announced a
 * contact's message in it before the read began, when it was not in the read before (the bot handed it over, or a
 * change the tab did not hear), when its last message is a new one of the contact's (the stream was down), or when
 * the team was reminded of it since. One there only as its campaign's bot was switched off (or the campaign paused)
 * is counted, not told: a switch can leave hundreds of conversations to the team at once, and whoever switched knows. Another member's conversation is there only for its reminder: it is told for
 * that alone, once, not for each message the contact adds. The first read tells nothing: it is what was waiting
 * already. A conversation assigned to the member is told by its own event, as an assignment.
 */
export function useNotifier(me: string, waiting: Waiting | undefined): void {
  // By conversation: the contact's latest message announced, and the assignments to the member told already.
  const wrote = useRef(new Map<string, Heard>());
  const assigned = useRef(new Map<string, Heard>());
  // By campaign: its bot switched off or on (or the campaign paused, or Live again).
  const switched = useRef(new Map<string, Heard>());
  // The conversations of the read before.
  const before = useRef<Map<string, Known> | undefined>(undefined);
  useEffect(
    () =>
      subscribe({
        news: ({ event, data }) => {
          if (event === 'campaign.updated' && data.campaignId)
            switched.current.set(data.campaignId, { at: Date.now() });
          const id = data.conversationId;
          if (!id) return;
          if (event === 'message.created' && data.direction === 'incoming')
            wrote.current.set(id, { at: Date.now(), messageId: data.messageId });
          const toMe = event === 'conversation.assigned' && data.assigneeId === me;
          if (toMe) assigned.current.set(id, { at: Date.now() });
          if (!notifying(me)) return;
          // The tab showing the conversation claims it, so that no other tab tells of what is on screen.
          if (showing(id)) return void firstToTell(id);
          // Read, the conversation is told under `title` and its contact's name.
          const tellRead = (title: string, messageId?: string, text?: string) =>
            void get<Conversation>(`/v1/conversations/${encodeURIComponent(id)}`).then((res) => {
              if (res.ok) void tell(res.data!, `${title}: ${contactName(res.data!.contact)}`, messageId, text);
            });
          // A snooze ran out: its assignee is told, every member when nobody has it, as of a reminder.
          if (event === 'conversation.woke') {
            if ((data.assigneeId ?? null) !== null && data.assigneeId !== me) return;
            return tellRead('Snooze ended', undefined, 'Back in the inbox: the time it was snoozed until came.');
          }
          if (toMe && !actedOn(me, id)) tellRead('Assigned to you', wrote.current.get(id)?.messageId);
        },
      }),
    [me],
  );
  useEffect(() => {
    if (!waiting) return;
    const heldBy = (heard: Map<string, Heard>) => {
      const held = new Map<string, Heard>();
      for (const [id, h] of heard) {
        if (h.at >= waiting.readAt) continue;
        held.set(id, h);
        heard.delete(id);
      }
      return held;
    };
    const news = heldBy(wrote.current);
    const toldAssigned = heldBy(assigned.current);
    const switchedOff = heldBy(switched.current);
    const known = before.current;
    const contactsLast = (c: Conversation) => (c.lastMessage?.direction === 'incoming' ? c.lastMessage.id : undefined);
    before.current = new Map(
      waiting.conversations.map((c) => [c.id, { contactsLast: contactsLast(c), remindedAt: c.remindedAt }]),
    );
    if (!known || !notifying(me)) return;
    for (const c of waiting.conversations) {
      const heard = news.get(c.id);
      const was = known.get(c.id);
      const reminded = c.remindedAt !== null && c.remindedAt !== was?.remindedAt;
      // A message the stream did not tell (it was down, the inbox polling) shows as a new last message of the contact's.
      const wrote = heard || !was || (contactsLast(c) !== undefined && contactsLast(c) !== was.contactsLast);
      // Come in only as its campaign's bot stopped answering: counted, not told, one of maybe hundreds at once.
      const withItsBot = !heard && !was && c.campaignId !== null && switchedOff.has(c.campaignId);
      const fresh = c.assigneeId && c.assigneeId !== me ? reminded : reminded || (wrote && !withItsBot);
      if (!fresh || toldAssigned.has(c.id) || actedOn(me, c.id)) continue;
      const name = contactName(c.contact);
      const title = reminded ? `${noReplyFor(c)}: ${name}` : c.assigneeId ? name : `Unassigned: ${name}`;
      void tell(c, title, heard?.messageId);
    }
  }, [waiting]);
}
