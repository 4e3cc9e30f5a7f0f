import { useEffect, useState } from 'preact/hooks';

/**
 * The tab's one stream of its account's changes (GET /console/api/stream, docs/console.md): opened for the first
 * page that listens, closed when none does. It tells each listener the events as they come and whether the stream
 * is up. EventSource reconnects by itself (the gateway's `retry:`) and resumes from the last event id; a stream the
 * gateway refused (429, 503) is opened again a little later, from the last id heard.
 */
export interface LiveEvent {
  /** An event of the stream's table; `reset`: it cannot vouch it told everything: read again what is shown. */
  event:
    | 'message.created'
    | 'message.updated'
    | 'note.created'
    | 'note.deleted'
    | 'conversation.assigned'
    | 'conversation.updated'
    | 'conversation.woke'
    | 'conversation.removed'
    | 'campaign.updated'
    | 'credits.updated'
    | 'webhooks.updated'
    | 'hours.updated'
    | 'member.updated'
    | 'reset';
  data: {
    conversationId?: string;
    messageId?: string;
    noteId?: string;
    direction?: 'incoming' | 'outgoing';
    assigneeId?: string | null;
    campaignId?: string;
  };
}

/** `connecting` only before the first answer: a page waits for it rather than read twice. */
export type LiveState = 'connecting' | 'up' | 'down';

export interface LiveListener {
  news?: (e: LiveEvent) => void;
  state?: (state: LiveState) => void;
}

const STREAM_PATH = '/console/api/stream';
const EVENTS: Array<LiveEvent['event']> = [
  'message.created',
  'message.updated',
  'note.created',
  'note.deleted',
  'conversation.assigned',
  'conversation.updated',
  'conversation.woke',
  'conversation.removed',
  'campaign.updated',
  'credits.updated',
  'webhooks.updated',
  'hours.updated',
  'member.updated',
  'reset',
];
/** A stream not open by then is taken as down (a proxy holding it back): the pages poll until it opens. */
const OPENING_MS = 2_000;
/** After the gateway refused a stream: opened again then, the pages polling meanwhile. */
const REOPEN_MS = 15_000;

const listeners = new Set<LiveListener>();
let source: EventSource | undefined;
let state: LiveState = 'connecting';
let lastEventId = '';
let opening: ReturnType<typeof setTimeout> | undefined;
let reopening: ReturnType<typeof setTimeout> | undefined;

export const liveState = (): LiveState => state;

function setState(next: LiveState): void {
  clearTimeout(opening);
  if (next === state) return;
  state = next;
  listeners.forEach((l) => l.state?.(next));
}

const tell = (e: LiveEvent) => listeners.forEach((l) => l.news?.(e));

function open(): void {
  // Opened anew, EventSource sends no Last-Event-ID: the query gives it.
  const es = new EventSource(
    lastEventId ? `${STREAM_PATH}?lastEventId=${encodeURIComponent(lastEventId)}` : STREAM_PATH,
  );
  source = es;
  opening = setTimeout(() => setState('down'), OPENING_MS);
  es.onopen = () => {
    const wasDown = state === 'down';
    setState('up');
    // Up again with no event id to resume from: what passed while it was down is unknown, so the pages read again.
    if (wasDown && !lastEventId) tell({ event: 'reset', data: {} });
  };
  es.onerror = () => {
    setState('down');
    if (es.readyState !== EventSource.CLOSED || source !== es) return;
    reopening = setTimeout(open, REOPEN_MS);
  };
  for (const event of EVENTS) {
    es.addEventListener(event, (m: MessageEvent<string>) => {
      if (m.lastEventId) lastEventId = m.lastEventId;
      let data: LiveEvent['data'] = {};
      try {
        data = JSON.parse(m.data) as LiveEvent['data'];
      } catch {
        // Nothing to read: the event alone says what to do.
      }
      tell({ event, data });
    });
  }
}

function close(): void {
  clearTimeout(opening);
  clearTimeout(reopening);
  source?.close();
  source = undefined;
  state = 'connecting';
}

/** Listens to the stream (opening it for the first listener); the returned function stops, closing it for the last. */
export function subscribe(listener: LiveListener): () => void {
  listeners.add(listener);
  if (!source) open();
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) close();
  };
}

/** Whether the stream is up, for a page that says so. */
export function useLiveState(): LiveState {
  const [now, setNow] = useState(liveState);
  useEffect(() => {
    setNow(liveState());
    return subscribe({ state: setNow });
  }, []);
  return now;
}
