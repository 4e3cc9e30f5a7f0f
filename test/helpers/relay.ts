import net from 'node:net';
import { freePort } from './gateway';

/** The first byte of a simple Query message ('Q', its length, the statement's text, NUL). */
const QUERY = 0x51;

interface Armed {
  /** The start of the statement's text. */
  text: Buffer;
  /** How many such statements to pass on first. */
  skip: number;
  when: 'before' | 'after';
  done: () => void;
}

/**
 * Whether `bytes` hold a simple Query message whose text starts with `text` (how node-postgres sends a statement
 * without values: BEGIN, COMMIT), its text ending after `seen` (bytes passed on already, kept to see a message
 * split across two chunks).
 */
function holdsQuery(bytes: Buffer, text: Buffer, seen: number): boolean {
  for (let at = bytes.indexOf(text); at >= 0; at = bytes.indexOf(text, at + 1)) {
    if (at >= 5 && at + text.length > seen && bytes[at - 5] === QUERY && bytes.readInt32BE(at - 4) >= text.length + 5)
      return true;
  }
  return false;
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
   * Breaks the connection that next sends a statement starting with `statement` (`COMMIT`, `BEGIN`), after `skip`
   * of them, with whatever was sent along with it: `after` passes them on first (at a COMMIT the database commits,
   * and the answer is lost), `before` drops them (the database rolls the transaction back when the connection ends).
   * Resolves once done: with `after`, once the server, having run them, closed the connection.
   */
  cutAt(statement: string, when: 'before' | 'after', skip = 0): Promise<void> {
    return new Promise((done) => (this.armed = { text: Buffer.from(statement), skip, when, done }));
  }

  private relay(client: net.Socket): void {
    const upstream = net.connect(this.target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('close', () => this.sockets.delete(socket));
    }
    // The end of the last chunk: a statement split across two chunks is still seen.
    let tail: Buffer = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      const armed = this.armed;
      const seen = armed && holdsQuery(Buffer.concat([tail, chunk]), armed.text, tail.length);
      tail = chunk.subarray(Math.max(0, chunk.length - 64));
      if (seen && armed.skip > 0) armed.skip -= 1;
      else if (seen) return this.breakAt(client, upstream, chunk, armed);
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
