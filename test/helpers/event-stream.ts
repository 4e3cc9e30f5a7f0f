import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { trusting, type TestGateway } from './gateway';

/** One event of a Server-Sent Events stream, as a browser's EventSource dispatches it. */
export interface StreamEvent {
  /** The last event id when it was dispatched (an `id:` line of its own, or an earlier one). */
  id: string;
  event: string;
  /** Its `data:` lines, read as JSON when they are. */
  data: any;
}

/** What an opened stream has received so far, and ways to wait for more. */
export interface EventStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body of an answer that is no stream (an error), read as JSON when it is. */
  body: any;
  events: StreamEvent[];
  /** Comment lines (`: keep-alive`), without the colon. */
  comments: string[];
  /** The last `retry:` value given, in ms. */
  retry: number | undefined;
  /** The id a reconnect would send as Last-Event-ID, as EventSource keeps it. */
  lastEventId: string;
  /** Whether the server ended the stream. */
  readonly ended: boolean;
  /** Resolves with the events once `done(events)` holds; rejects, saying what came, after `timeoutMs`. */
  until(done: (events: StreamEvent[]) => boolean, timeoutMs?: number): Promise<StreamEvent[]>;
  /** Resolves once the server ended the stream; rejects after `timeoutMs`. */
  end(timeoutMs?: number): Promise<void>;
  /** Closes it from this side. */
  close(): void;
}

/**
 * Opens GET `pathname` as an EventSource does (Accept: text/event-stream, Last-Event-ID when given in `headers`)
 * and parses what comes by the rules of the SSE format: `id:`, `event:`, `data:`, `retry:` and comment lines, an
 * event dispatched at each blank line that ends some data. Resolves once the answer's headers are in; an answer
 * other than 200 is read whole first.
 */
export function openStream(
  gw: Pick<TestGateway, 'url' | 'ca'>,
  pathname: string,
  headers: Record<string, string> = {},
): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(pathname, gw.url),
      { headers: { accept: 'text/event-stream', ...headers }, ...trusting(gw.ca), agent: false },
      (res) => {
        let ended = false;
        const waiters = new Set<() => void>();
        const changed = () => {
          for (const waiter of [...waiters]) waiter();
        };
        const stream: EventStream = {
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: undefined,
          events: [],
          comments: [],
          retry: undefined,
          lastEventId: '',
          get ended() {
            return ended;
          },
          until(done, timeoutMs = 10_000) {
            return waitFor(
              () => done(stream.events),
              timeoutMs,
              () => `events so far: ${JSON.stringify(stream.events)}`,
            ).then(() => stream.events);
          },
          end(timeoutMs = 10_000) {
            return waitFor(
              () => ended,
              timeoutMs,
              () => 'the stream did not end',
            );
          },
          close() {
            req.destroy();
          },
        };
        function waitFor(done: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
          return new Promise((ok, fail) => {
            const check = () => {
              if (!done()) return;
              clearTimeout(timer);
              waiters.delete(check);
              ok();
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`not within ${timeoutMs} ms: ${what()}`));
            }, timeoutMs);
            waiters.add(check);
            check();
          });
        }
        const finish = () => {
          ended = true;
          changed();
        };
        res.once('end', finish);
        res.once('close', finish);
        res.setEncoding('utf8');
        if (stream.status !== 200) {
          let text = '';
          res.on('data', (chunk: string) => (text += chunk));
          res.once('end', () => {
            try {
              stream.body = JSON.parse(text);
            } catch {
              stream.body = text;
            }
            resolve(stream);
          });
          return;
        }
        let pending = '';
        let event = { id: '', type: '', data: [] as string[] };
        const line = (text: string) => {
          if (text === '') {
            stream.lastEventId = event.id;
            if (event.data.length > 0) {
              const raw = event.data.join('\n');
              let data: any = raw;
              try {
                data = JSON.parse(raw);
              } catch {
                // Not JSON: kept as text.
              }
              stream.events.push({ id: event.id, event: event.type || 'message', data });
            }
            event = { id: stream.lastEventId, type: '', data: [] };
            return;
          }
          if (text.startsWith(':')) return void stream.comments.push(text.slice(1).trim());
          const colon = text.indexOf(':');
          const field = colon < 0 ? text : text.slice(0, colon);
          const value = colon < 0 ? '' : text.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') event.id = value;
          else if (field === 'event') event.type = value;
          else if (field === 'data') event.data.push(value);
          else if (field === 'retry' && /^\d+$/.test(value)) stream.retry = Number(value);
        };
        res.on('data', (chunk: string) => {
          pending += chunk;
          const lines = pending.split(/\r\n|\r|\n/);
          pending = lines.pop()!;
          for (const text of lines) line(text);
          changed();
        });
        resolve(stream);
      },
    );
    req.on('error', (err) => {
      // Closed from this side: not an error of the test.
      if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET' && err.message !== 'socket hang up') reject(err);
    });
    req.end();
  });
}
