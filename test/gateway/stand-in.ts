import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a stand-in received, with its body read as JSON or as a form, whichever it was. */
export interface StandInRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  /** The body parsed as JSON; undefined when it was not JSON. */
  body: unknown;
  /** The body read as a form (application/x-www-form-urlencoded). */
  form: Record<string, string>;
}

/** An answer: a string is sent as text/html, anything else as JSON; 'hang' never answers. */
export type StandInAnswer = { status: number; body: unknown } | 'hang';

/**
 * Stands in for a third party's API (Twilio, the Graph API, an LLM endpoint) on 127.0.0.1: records each request
 * and answers what the test says.
 */
export class StandIn {
  readonly requests: StandInRequest[] = [];
  url = '';
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        raw,
        body: json(raw),
        form: Object.fromEntries(new URLSearchParams(raw)),
      };
      this.requests.push(received);
      const answer = this.answer(received);
      if (answer === 'hang') return;
      const text = typeof answer.body === 'string';
      res.writeHead(answer.status, { 'content-type': text ? 'text/html' : 'application/json' });
      res.end(text ? answer.body : JSON.stringify(answer.body));
    });
  });

  constructor(public answer: (req: StandInRequest) => StandInAnswer) {}

  /** Listens; `url` is then its address followed by `basePath`. */
  async start(basePath = ''): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${basePath}`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function json(raw: string): unknown {
  try {
    return raw ? JSON.parse(raw) : undefined;
  } catch {
    return undefined;
  }
}
