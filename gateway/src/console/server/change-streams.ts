import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Response } from 'express';
import { clockNow } from '../../clock.js';
import type { Gateway } from '../../context.js';
import { campaignEvents } from '../../domain/campaign-changes.js';
import { creditEvents } from '../../domain/credit-changes.js';
import { inboxEvents } from '../../domain/inbox-changes.js';
import { webhookEvents } from '../../domain/webhook-changes.js';
import { hoursEvents } from '../../domain/hours-changes.js';
import { teamEvents } from '../../domain/team-changes.js';
import { SESSION_ENDED } from '../../domain/session-ends.js';
import { stillSignedIn } from '../../domain/sessions.js';
import { ApiError } from '../../errors.js';
import type { Change, ChangeListener } from '../../store/store.js';

/** A comment line this often: proxies close a connection quiet for a minute or so. The sessions are checked then too. */
const KEEP_ALIVE_MS = 25_000;
/** How long, and how many events per account, a reconnect may ask back. */
const KEPT_MS = 5 * 60_000;
const KEPT_EVENTS = 256;
/** Open streams per session on one process: one per console tab, and a bound for a tab that opens them in a loop. */
const STREAMS_PER_SESSION = 10;
/** A browser reconnects between 2 and 4 s after a stream ends: spread, so a restarted process is not hit at once. */
const RETRY_MS = 2_000;
/** Events a client has not read: past this it is not reading, and is let go (it reconnects and resumes). */
const MAX_UNSENT_BYTES = 1024 * 1024;

interface Stream {
  res: Response;
  /** Where its events are written: see open(). */
  socket: Socket;
  accountId: string;
  sessionId: string;
  /** Ended from this side: nothing more is written to it. */
  ended: boolean;
}

interface Kept {
  seq: number;
  at: number;
  text: string;
}

/** An account watched on this process: its open streams and its latest events, which a reconnect asks back. */
interface Watched {
  /** Names this account's ids on this process, and only while it is watched: random, so it tells nothing. */
  tag: string;
  /** The account's own count of events (and resets): another account's activity never moves it. */
  position: number;
  streams: Set<Stream>;
  kept: Kept[];
  /** Every event of the account after this position is kept: a reconnect from before it has missed some. */
  floor: number;
  /** When its last stream closed: kept that long for a reconnect, then forgotten. */
  idleSince: number;
  /** Events of this turn not written yet (see send). */
  unsent: string;
}

/**
 * The console's live streams on this process (GET /console/api/stream), kept by account: a committed change
 * reaches only the streams of its account, without a look at any other. Each event is written once as text and the
 * same text goes to every stream of the account.
 *
 * Event ids are `<tag>.<position>`: the tag names the account's watch on this process (random, new each time the
 * process starts watching it), positions count that account's events alone, so that an id tells a tenant nothing of
 * any other's activity. An id says that its holder was told everything of its account up to there. A reconnect with
 * one, within KEPT_MS and KEPT_EVENTS, is told what it missed; one this process cannot vouch for (another process's,
 * another watch's, too old, or after changes went unheard) is told `reset`: read again.
 */
export class ChangeStreams {
  private readonly accounts = new Map<string, Watched>();
  private readonly sessions = new Map<string, Set<Stream>>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private closed = false;
  /** The accounts with events to write at the end of this turn. */
  private readonly due = new Set<Watched>();

  constructor(private readonly gw: Gateway) {}

  /**
   * Answers `res` with the stream of the session's account, from `lastEventId` when given. A session holding
   * STREAMS_PER_SESSION already is refused with 429 before anything is written.
   */
  open(res: Response, session: { id: string; accountId: string }, lastEventId: string | undefined): void {
    if (this.closed)
      throw new ApiError(503, 'SHUTTING_DOWN', 'The gateway is shutting down; reconnect shortly', {
        'Retry-After': '2',
      });
    const mine = this.sessions.get(session.id);
    if (mine && mine.size >= STREAMS_PER_SESSION) {
      throw new ApiError(
        429,
        'TOO_MANY_STREAMS',
        `This session has ${STREAMS_PER_SESSION} event streams open already: close one (a console tab holds one)`,
      );
    }
    const watched = this.watch(session.accountId);
    // What the account's streams are still to be told goes to them alone: the new one is told from `kept`.
    this.flush(watched);
    const stream: Stream = {
      res,
      socket: res.socket!,
      accountId: session.accountId,
      sessionId: session.id,
      ended: false,
    };
    watched.streams.add(stream);
    if (mine) mine.add(stream);
    else this.sessions.set(session.id, new Set([stream]));
    res.once('close', () => this.forget(stream));

    // The body ends with the connection (Connection: close), not in chunks: after the headers, each event is written
    // to the socket as it is, which costs a change told to a thousand streams a third less than chunks would.
    res.useChunkedEncodingByDefault = false;
    res.shouldKeepAlive = false;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      // nginx and others buffer a response unless told not to: each event must go out as it comes.
      'X-Accel-Buffering': 'no',
    });
    stream.socket.setNoDelay(true);
    const from = this.resumable(watched, lastEventId);
    let text = `retry: ${RETRY_MS + Math.floor(Math.random() * RETRY_MS)}\n`;
    if (from === undefined)
      text += `id: ${idOf(watched, watched.position)}\n${lastEventId === undefined ? '' : 'event: reset\ndata: {}\n'}\n`;
    else
      text += `\n${watched.kept
        .filter((k) => k.seq > from)
        .map((k) => k.text)
        .join('')}`;
    // The headers and the first lines together; later events go straight to the socket, after them.
    res.write(text);
  }

  /** Ends every stream: the process is stopping, and their browsers reconnect elsewhere. */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.unsubscribe?.();
    for (const streams of this.sessions.values()) for (const stream of streams) this.end(stream);
  }

  private readonly listener: ChangeListener = {
    changed: (accountId, changes) => this.changed(accountId, changes),
    missed: (accountId) => {
      for (const [id, watched] of this.accounts) if (accountId === undefined || id === accountId) this.reset(watched);
    },
  };

  private changed(accountId: string, changes: readonly Change[]): void {
    const watched = this.accounts.get(accountId);
    if (!watched) return;
    let text = '';
    const at = clockNow();
    for (const change of changes) {
      if (change.kind === SESSION_ENDED) {
        this.endSession(String(change.sessionId));
        continue;
      }
      for (const { event, data } of [
        ...inboxEvents(change),
        ...campaignEvents(change),
        ...creditEvents(change),
        ...webhookEvents(change),
        ...hoursEvents(change),
        ...teamEvents(change),
      ]) {
        const seq = ++watched.position;
        const kept = { seq, at, text: `id: ${idOf(watched, seq)}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n` };
        watched.kept.push(kept);
        text += kept.text;
      }
    }
    if (!text) return;
    this.trim(watched, at);
    this.send(watched, text);
  }

  /**
   * Writes `text` to the account's streams once this turn is over: the request that made the change is answered
   * first, and the commits of one turn (a group commit, a burst of notifications) reach each stream as one write.
   */
  private send(watched: Watched, text: string): void {
    watched.unsent += text;
    if (this.due.size === 0) setImmediate(() => this.flushDue());
    this.due.add(watched);
  }

  private flushDue(): void {
    for (const watched of this.due) this.flush(watched);
    this.due.clear();
  }

  /** Encoded once, the same bytes for every stream of the account. */
  private flush(watched: Watched): void {
    if (!watched.unsent) return;
    const bytes = Buffer.from(watched.unsent);
    watched.unsent = '';
    for (const stream of watched.streams) this.write(stream, bytes);
  }

  /** The account's entry, made (and the store listened to) when it has none. */
  private watch(accountId: string): Watched {
    let watched = this.accounts.get(accountId);
    if (watched) return watched;
    // A tag of its own: no id given out before (by an earlier watch of the account) can resume here, since nothing
    // was kept for it until now.
    watched = {
      tag: randomBytes(6).toString('hex'),
      position: 0,
      streams: new Set(),
      kept: [],
      floor: 0,
      idleSince: 0,
      unsent: '',
    };
    this.accounts.set(accountId, watched);
    this.unsubscribe ??= this.gw.store.changes.subscribe(this.listener);
    this.timer ??= setInterval(() => void this.tick(), KEEP_ALIVE_MS).unref();
    return watched;
  }

  /** The position after which `lastEventId` asks to resume, when this process can tell all that came after it. */
  private resumable(watched: Watched, lastEventId: string | undefined): number | undefined {
    if (lastEventId === undefined) return undefined;
    const [tag, position] = lastEventId.split('.');
    const seq = Number(position);
    if (tag !== watched.tag || !Number.isSafeInteger(seq)) return undefined;
    return seq >= watched.floor && seq <= watched.position ? seq : undefined;
  }

  /** Changes went unheard: nothing kept can be vouched for, and every stream is told to read again. */
  private reset(watched: Watched): void {
    watched.kept = [];
    watched.floor = ++watched.position;
    this.send(watched, `id: ${idOf(watched, watched.floor)}\nevent: reset\ndata: {}\n\n`);
  }

  /** Forgets events past KEPT_MS or KEPT_EVENTS; a reconnect from before them is reset. */
  private trim(watched: Watched, at: number): void {
    let drop = Math.max(0, watched.kept.length - KEPT_EVENTS);
    while (drop < watched.kept.length && watched.kept[drop]!.at < at - KEPT_MS) drop += 1;
    if (drop === 0) return;
    watched.floor = watched.kept[drop - 1]!.seq;
    watched.kept = watched.kept.slice(drop);
  }

  private write(stream: Stream, text: string | Buffer): void {
    const { socket } = stream;
    if (stream.ended || socket.destroyed) return;
    if (socket.writableLength > MAX_UNSENT_BYTES) return this.end(stream);
    socket.write(text);
  }

  private end(stream: Stream): void {
    stream.ended = true;
    stream.res.end();
  }

  private endSession(sessionId: string): void {
    for (const stream of this.sessions.get(sessionId) ?? []) this.end(stream);
  }

  private forget(stream: Stream): void {
    const watched = this.accounts.get(stream.accountId);
    if (watched?.streams.delete(stream) && watched.streams.size === 0) watched.idleSince = clockNow();
    const mine = this.sessions.get(stream.sessionId);
    if (mine?.delete(stream) && mine.size === 0) this.sessions.delete(stream.sessionId);
  }

  /**
   * Every KEEP_ALIVE_MS: a comment line on every stream, the end of those whose session ended otherwise than by a
   * sign-out (it expired, its member left), and old events and accounts nobody watches any more forgotten.
   */
  private async tick(): Promise<void> {
    const at = clockNow();
    for (const [accountId, watched] of this.accounts) {
      this.trim(watched, at);
      if (watched.streams.size === 0 && at - watched.idleSince > KEPT_MS) this.accounts.delete(accountId);
    }
    if (this.accounts.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.unsubscribe?.();
      this.unsubscribe = undefined;
      return;
    }
    for (const streams of this.sessions.values()) for (const stream of streams) this.write(stream, ': keep-alive\n\n');
    await Promise.all(
      [...this.sessions.keys()].map(async (sessionId) => {
        // A store out of reach ends nothing: the streams carry nothing meanwhile, and a request would tell.
        if (!(await stillSignedIn(this.gw, sessionId).catch(() => true))) this.endSession(sessionId);
      }),
    );
  }
}

const idOf = (watched: Watched, seq: number) => `${watched.tag}.${seq}`;
