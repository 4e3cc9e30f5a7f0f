import { useEffect, useRef } from 'preact/hooks';
import type { Conversation } from '../answers.js';
import { get } from '../api.js';
import { subscribe } from '../live.js';
import { navigate } from '../router.js';
import { contactName } from '../pages/inbox/labels.js';
import type { Waiting } from '../waiting.js';
import { firstToTell } from './once.js';
import { actedOn } from './own-actions.js';
import { notifying } from './setting.js';
import { chime } from './sound.js';

const INBOX_PATH = '/console/inbox';

const showing = (conversationId: string) =>
  document.visibilityState === 'visible' && location.pathname === INBOX_PATH && new URLSearchParams(location.search).get('c') === conversationId;

/** A desktop notification (when the browser allows them) and the chime; a click opens the conversation. */
async function tell(c: Conversation, title: string): Promise<void> {
  if (showing(c.id) || !(await firstToTell(c.id))) return;
  chime();
  if (!('Notification' in window) || Notification.permission !== 'granted') return;
  let shown: Notification;
  try {
    shown = new Notification(title, { body: c.lastMessage?.body || 'Open the conversation to read it.', tag: `leadchat-${c.id}` });
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

/**
 * Tells the member, when they turned notifications on (setting.tsx), that a conversation was assigned to them or
 * that a contact wrote in one of theirs: not what they did themselves, nor what a tab of theirs shows. A contact's
 * message the stream announces is theirs when the next read of the conversations `waiting` for their reply (which
 * the same news has read again) finds it the last message of one.
 */
export function useNotifier(me: string, waiting: Waiting | undefined): void {
  // The contacts' messages announced, by id, with when: a read begun later says whether each is the member's.
  const heard = useRef(new Map<string, number>());
  useEffect(() => subscribe({
    news: ({ event, data }) => {
      const id = data.conversationId;
      if (!id || !notifying(me)) return;
      if (showing(id)) return void firstToTell(id);
      if (event === 'message.created' && data.direction === 'incoming' && data.messageId) heard.current.set(data.messageId, Date.now());
      if (event === 'conversation.assigned' && data.assigneeId === me && !actedOn(me, id)) {
        void get<Conversation>(`/v1/conversations/${encodeURIComponent(id)}`).then((res) => {
          if (res.ok) void tell(res.data!, `Assigned to you: ${contactName(res.data!.contact)}`);
        });
      }
    },
  }), [me]);
  useEffect(() => {
    if (!waiting) return;
    const answered = new Set<string>();
    for (const [messageId, at] of heard.current) {
      if (at >= waiting.readAt) continue;
      answered.add(messageId);
      heard.current.delete(messageId);
    }
    for (const c of waiting.conversations) {
      if (c.lastMessage?.direction === 'incoming' && answered.has(c.lastMessage.id)) void tell(c, contactName(c.contact));
    }
  }, [waiting]);
}
