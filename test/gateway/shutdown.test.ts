import https from 'node:https';
import {
  createAccount,
  keepAliveClient,
  removeDir,
  startGateway,
  type GatewayProcess,
  type TestAccount,
  type TestGateway,
} from '../helpers/gateway';

/**
 * SIGTERM under keep-alive clients sending continuously, as a service behind a pool of keep-alive connections meets
 * a restart: no request a client has sent is reset. Answers from the start of the shutdown carry
 * `Connection: close`; a client then opens a new connection for its next request, which is served during
 * LEADCHAT_SHUTDOWN_DELAY and refused at the connection once the listening socket is closed.
 */
jest.setTimeout(90_000);

const CLIENTS = 16;

interface Outcome {
  /** The answer's status; 0 when the request failed. */
  status: number;
  /** Whether the answer said `Connection: close`. */
  close: boolean;
  keepAlive?: string;
  /** Whether the request went on a connection an earlier request had used. */
  reused: boolean;
  /** Whether the request was sent: its connection was reused, or finished its TLS handshake. */
  sent: boolean;
  error?: string;
  phone: string;
  id?: string;
}

/** A POST /v1/contacts on `agent`'s pooled connections. */
function createContact(gw: TestGateway, agent: https.Agent, apiKey: string, phone: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = https.request(new URL('/v1/contacts', gw.url), {
      method: 'POST',
      agent,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    });
    let handshaken = false;
    req.on('socket', (socket) => socket.once('secureConnect', () => (handshaken = true)));
    const failed = (err: NodeJS.ErrnoException) =>
      resolve({
        status: 0,
        close: false,
        reused: req.reusedSocket,
        sent: req.reusedSocket || handshaken,
        error: err.code ?? err.message,
        phone,
      });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c) => (text += c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          close: res.headers.connection === 'close',
          keepAlive: String(res.headers['keep-alive']),
          reused: req.reusedSocket,
          sent: true,
          phone,
          id: (JSON.parse(text) as { id?: string }).id,
        }),
      );
      res.on('error', failed);
    });
    req.on('error', failed);
    req.end(JSON.stringify({ phone, firstName: 'Keep' }));
  });
}

/**
 * Runs CLIENTS clients, each sending one request after another on a keep-alive pool of one connection, until one is
 * refused; SIGTERM goes once every client has had answers on a reused connection. Each client's outcomes, in order.
 */
async function sigtermUnderLoad(gw: GatewayProcess, account: TestAccount): Promise<Outcome[][]> {
  const outcomes: Outcome[][] = Array.from({ length: CLIENTS }, () => []);
  const agents: https.Agent[] = [];
  let signal: () => void = () => undefined;
  const warmedUp = new Promise<void>((resolve) => (signal = resolve));
  let n = 0;
  const client = async (c: number) => {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: gw.ca });
    agents.push(agent);
    for (;;) {
      const outcome = await createContact(gw, agent, account.apiKey, `+1415556${String(n++).padStart(4, '0')}`);
      outcomes[c]!.push(outcome);
      if (outcomes.every((o) => o.filter((x) => x.reused && x.status === 201).length >= 3)) signal();
      if (outcome.status === 0) return;
    }
  };
  const clients = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
  await warmedUp;
  gw.process.kill('SIGTERM');
  await clients;
  for (const agent of agents) agent.destroy();
  return outcomes;
}

async function expectEveryRequestAnswered(env: Record<string, string>): Promise<Outcome[][]> {
  const gw = await startGateway(env);
  try {
    const account = await createAccount(gw);
    const outcomes = await sigtermUnderLoad(gw, account);
    expect(await gw.exited).toBe(0);

    for (const [c, ofClient] of outcomes.entries()) {
      // A client's one failure is its last request, refused at the connection (or, when its connection was taken
      // as the listening socket closed, reset before its TLS handshake: the request was never sent); never a reset
      // of a request it had sent.
      const failures = ofClient.filter((o) => o.status === 0);
      expect({
        client: c,
        failures: failures.map((o) => ({ sent: o.sent, refused: o.error === 'ECONNREFUSED' })),
      }).toEqual({ client: c, failures: [{ sent: false, refused: expect.any(Boolean) }] });
      expect(ofClient.at(-1)!.status).toBe(0);
      const answered = ofClient.filter((o) => o.status !== 0);
      for (const o of answered) expect(o.status).toBe(201);
      // Keep-alive answers before the shutdown (with the timeout the client honours), `Connection: close` after it.
      const closing = answered.findIndex((o) => o.close);
      expect({ client: c, closing }).toEqual({ client: c, closing: expect.any(Number) });
      expect(closing).toBeGreaterThan(0);
      expect(answered.slice(closing).every((o) => o.close)).toBe(true);
      expect(answered.slice(0, closing).every((o) => o.keepAlive === 'timeout=5')).toBe(true);
    }

    // Every answered creation is kept.
    const again = await startGateway({}, gw.dataDir);
    const reader = keepAliveClient(again, account.apiKey, 8);
    try {
      const created = outcomes.flat().filter((o) => o.status === 201);
      const found = await Promise.all(
        created.map((o) => reader.call('GET', `/v1/contacts?phoneNumber=${encodeURIComponent(o.phone)}`)),
      );
      expect(found.map((f) => f.body.id)).toEqual(created.map((o) => o.id));
    } finally {
      reader.close();
      expect(await again.stop()).toBe(0);
    }
    return outcomes;
  } finally {
    await gw.kill();
    removeDir(gw.dataDir);
  }
}

test(`SIGTERM under ${CLIENTS} keep-alive clients sending continuously: no request sent is reset, each is answered or refused at the connection, and every answered one is kept`, async () => {
  await expectEveryRequestAnswered({});
});

test('with LEADCHAT_SHUTDOWN_DELAY, the clients are served on new connections during the delay, their answers carrying Connection: close', async () => {
  const outcomes = await expectEveryRequestAnswered({ LEADCHAT_SHUTDOWN_DELAY: '1s' });
  for (const ofClient of outcomes) {
    // More than the one answer a request under way at the signal gets: the delay served each client anew.
    const closed = ofClient.filter((o) => o.status === 201 && o.close);
    expect(closed.length).toBeGreaterThan(1);
    // The first may have come on the connection the client was using; each later one came on a new connection.
    expect(closed.slice(1).every((o) => !o.reused)).toBe(true);
  }
});
