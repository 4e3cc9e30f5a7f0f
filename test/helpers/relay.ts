import net from 'node:net';
import { freePort } from './gateway';
import { ONE_STATEMENT } from './postgres-stand-in';

/** The first bytes of the frontend messages that name a statement: a simple Query, a Parse, a Bind. */
const QUERY = 0x51;
const PARSE = 0x50;
const BIND = 0x42;
/** The codes of the requests a client may send before its startup message, each answered with one byte. */
const ENCRYPTION_REQUESTS = new Set([80877103, 80877104]);

/** The statements that commit: COMMIT, or the store's one statement, which commits itself. */
export const COMMITTING = ['COMMIT', ONE_STATEMENT];

interface Armed {
  /** How the statement's text may start. */
  starts: string[];
  /** How many such statements to pass on first. */
  skip: number;
  when: 'before' | 'after';
  done: () => void;
}

/** A NUL-terminated string in `bytes` at `at`, and where the next field starts. */
function cstring(bytes: Buffer, at: number): [string, number] {
  const end = bytes.indexOf(0, at);
  return [bytes.toString('utf8', at, end), end + 1];
}

/**
 * The statements a client's connection runs, read from its messages as they pass: a simple Query (how node-postgres
 * sends a statement without values: BEGIN, COMMIT) runs its text, a Bind the text that a Parse gave its statement's
 * name (a prepared statement is parsed once per connection, then run by name).
 */
class Statements {
  private pending: Buffer = Buffer.alloc(0);
  private started = false;
  private readonly texts = new Map<string, string>();

  /** The texts of the statements that the messages completed by `chunk` run, in order. */
  run(chunk: Buffer): string[] {
    this.pending = Buffer.concat([this.pending, chunk]);
    const texts: string[] = [];
    while (this.pending.length >= 5) {
      // The startup message (and a request for encryption before it) has no type byte.
      const head = this.started ? 1 : 0;
      const end = head + this.pending.readInt32BE(head);
      if (this.pending.length < end) break;
      const message = this.pending.subarray(0, end);
      this.pending = this.pending.subarray(end);
      if (!this.started) {
        this.started = !ENCRYPTION_REQUESTS.has(message.readInt32BE(4));
        continue;
      }
      if (message[0] === QUERY) texts.push(cstring(message, 5)[0]);
      else if (message[0] === PARSE) {
        const [name, at] = cstring(message, 5);
        this.texts.set(name, cstring(message, at)[0]);
      } else if (message[0] === BIND) {
        const [, at] = cstring(message, 5);
        texts.push(this.texts.get(cstring(message, at)[0]) ?? '');
      }
    }
    return texts;
  }
}

/**
 * A TCP relay on loopback between gateways and the test's PostgreSQL, which a test cuts and restores: the database
 * out of reach as a network outage or a restart of the server makes it, the server itself untouched. It can also
 * break the one connection that sends a given statement next, just before or just after passing it on: at a COMMIT
 * the client never hears the answer, so whether the change was kept is known only to the database.
 */
export class Relay {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private armed: Armed | undefined;

  private constructor(
    readonly port: number,
    private readonly target: number,
  ) {}

  /** A relay to the server on `target`, passing connections on. */
  static async start(target: number): Promise<Relay> {
    const relay = new Relay(await freePort(), target);
    await relay.resume();
    return relay;
  }

  /** `url` (a database's), through this relay. */
  through(url: string): string {
    const via = new URL(url);
    via.port = String(this.port);
    return via.toString();
  }

  /** Takes connections (again). */
  resume(): Promise<void> {
    if (this.server) return Promise.resolve();
    const server = net.createServer((client) => this.relay(client));
    this.server = server;
    return new Promise((resolve) => server.listen(this.port, '127.0.0.1', resolve));
  }

  /** The database out of reach: every connection through the relay is cut and new ones are refused. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  /**
   * Breaks the connection that next runs a statement starting with `statement` (`BEGIN`, or one of several: see
   * COMMITTING), after `skip` of them, with whatever was sent along with it: `after` passes them on first (at a
   * commit the database commits, and the answer is lost), `before` drops them (the database rolls the transaction
   * back when the connection ends). Resolves once done: with `after`, once the server, having run them, closed the
   * connection.
   */
  cutAt(statement: string | string[], when: 'before' | 'after', skip = 0): Promise<void> {
    const starts = typeof statement === 'string' ? [statement] : statement;
    return new Promise((done) => (this.armed = { starts, skip, when, done }));
  }

  private relay(client: net.Socket): void {
    const upstream = net.connect(this.target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('close', () => this.sockets.delete(socket));
    }
    const statements = new Statements();
    client.on('data', (chunk: Buffer) => {
      for (const text of statements.run(chunk)) {
        const armed = this.armed;
        if (!armed?.starts.some((start) => text.startsWith(start))) continue;
        if (armed.skip > 0) armed.skip -= 1;
        else return this.breakAt(client, upstream, chunk, armed);
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => void (client.destroyed || client.write(chunk)));
    client.once('close', () => {
      if (!upstream.writableEnded) upstream.destroy();
    });
    upstream.once('close', () => client.destroy());
  }

  /** The client never hears again; the server gets `chunk` (the armed statement and what came with it) or not. */
  private breakAt(client: net.Socket, upstream: net.Socket, chunk: Buffer, armed: Armed): void {
    this.armed = undefined;
    client.destroy();
    if (armed.when === 'after') {
      // The statement reaches the server, then the end of the connection: the server runs it, then closes.
      upstream.once('close', armed.done);
      upstream.end(chunk);
    } else {
      upstream.destroy();
      armed.done();
    }
  }
}
