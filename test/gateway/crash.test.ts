import {
  BACKEND,
  createAccount,
  keepAliveClient,
  removeDir,
  type KeepAliveReply,
  startGateway,
  tempDir,
  type TestAccount,
  type GatewayProcess,
} from '../helpers/gateway';

/**
 * kill -9 during concurrent ingestion. Whatever the moment of the crash, after a restart on the same data dir:
 * the store opens cleanly, every messageId that was acknowledged is readable, and re-posting its messageSid
 * returns the same messageId (no duplicates). Requests cut off by the crash were never acknowledged: they may or
 * may not have been stored, but only once.
 */

jest.setTimeout(180_000);

const CLIENTS = 8;
const SENDERS = 12;
/**
 * The crash comes once this many new messages have been acknowledged in the round: early, mid-stream, later on. The
 * embedded store's rounds run long enough for its journal to be checkpointed (every 2,000 records) between crashes;
 * on PostgreSQL, where a commit is the database's and the gateway keeps no journal, shorter rounds prove as much.
 */
const KILL_AFTER = BACKEND === 'postgres' ? [25, 200, 400] : [25, 700, 1500];

/** Everything posted so far, across every round. */
const posted = new Map<string, { sender: string; text: string }>();
/** messageSid → the messageId the gateway acknowledged for it. */
const acked = new Map<string, string>();

const senderOf = (n: number) => `crash-sender-${n % SENDERS}`;
const incoming = (sid: string) => ({
  customData: {
    messageSid: sid,
    fromId: posted.get(sid)!.sender,
    toId: 'crash-business',
    body: posted.get(sid)!.text,
    channel: 'crash-test',
  },
});

/** Records an acknowledgement; true if it is the first for this messageSid. */
function recordAck(sid: string, reply: KeepAliveReply): boolean {
  if (reply.status !== 200 || reply.body?.success !== true) {
    throw new Error(`unexpected answer for ${sid}: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  const before = acked.get(sid);
  if (before !== undefined && before !== reply.body.messageId) {
    throw new Error(`duplicate: ${sid} was acknowledged as ${before}, now as ${reply.body.messageId}`);
  }
  acked.set(sid, reply.body.messageId);
  return before === undefined;
}

/**
 * CLIENTS concurrent clients post new messages (every fifth one twice at once, as a retrying channel would) until
 * `killAfter` have been acknowledged in this round, then the gateway is killed with SIGKILL.
 */
async function ingestUntilKilled(
  gw: GatewayProcess,
  apiKey: string,
  round: number,
  killAfter: number,
): Promise<{ ackedNow: number; inDoubt: string[] }> {
  const { call, close } = keepAliveClient(gw, apiKey, CLIENTS * 2);
  let next = 0;
  let ackedNow = 0;
  let killing: Promise<void> | undefined;
  const inDoubt: string[] = [];
  const unexpected: Error[] = [];

  const post = async (sid: string) => {
    let reply: KeepAliveReply;
    try {
      reply = await call('POST', '/v1/incoming_custom_channel_message', incoming(sid));
    } catch (err) {
      // Cut off by the crash: never acknowledged.
      if (killing) inDoubt.push(sid);
      else unexpected.push(err as Error);
      return;
    }
    try {
      if (recordAck(sid, reply)) ackedNow += 1;
    } catch (err) {
      unexpected.push(err as Error);
      return;
    }
    if (ackedNow >= killAfter) killing ??= gw.kill();
  };
  const worker = async () => {
    while (!killing) {
      const n = next++;
      const sid = `r${round}-m${n}`;
      posted.set(sid, { sender: senderOf(n), text: `round ${round} message ${n} ${'·'.repeat(n % 200)}` });
      await Promise.all(n % 5 === 0 ? [post(sid), post(sid)] : [post(sid)]);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, worker));
  await killing;
  close();
  if (unexpected.length) throw unexpected[0];
  expect(gw.process.signalCode).toBe('SIGKILL');
  return { ackedNow, inDoubt: [...new Set(inDoubt)].filter((sid) => !acked.has(sid)) };
}

/** Runs `fn` over `items` with `width` calls at a time. */
async function inParallel<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (i < items.length) await fn(items[i++]!);
    }),
  );
}

async function verify(gw: GatewayProcess, apiKey: string, inDoubt: string[]): Promise<void> {
  const { call, close } = keepAliveClient(gw, apiKey, CLIENTS * 2);
  try {
    // Re-posting acknowledged messages is recognised; messages cut off by the crash are stored now (or were already).
    await inParallel([...acked.keys(), ...inDoubt], CLIENTS, async (sid) => {
      recordAck(sid, await call('POST', '/v1/incoming_custom_channel_message', incoming(sid)));
    });

    // Each sender's contact, from one of its messages; then that contact's thread holds every message acknowledged
    // for the sender (so one contact per sender, whatever the crashes did), exactly once and as it was sent.
    const firstOf = new Map<string, string>();
    for (const [sid, messageId] of acked)
      if (!firstOf.has(posted.get(sid)!.sender)) firstOf.set(posted.get(sid)!.sender, messageId);
    for (const [sender, messageId] of firstOf) {
      const first = await call('GET', `/v1/messages/${messageId}`);
      expect({ messageId, status: first.status }).toEqual({ messageId, status: 200 });
      // A thread runs to hundreds of messages: read it page by page.
      const thread: Array<Record<string, unknown> & { id: string; messageSid: string }> = [];
      let cursor: string | null = null;
      do {
        const page: KeepAliveReply = await call(
          'GET',
          `/v1/contacts/${first.body.contactId}/messages?limit=200${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(page.status).toBe(200);
        // What the sender wrote: the gateway's hand-off notice (no campaign answers here) is no acknowledged message.
        thread.push(...page.body.data.filter((m: { direction: string }) => m.direction === 'incoming'));
        cursor = page.body.nextCursor;
      } while (cursor);
      const sids: string[] = thread.map((m) => m.messageSid);
      const expected = [...acked.keys()].filter((sid) => posted.get(sid)!.sender === sender);
      expect(sids.length).toBe(new Set(sids).size);
      expect(new Set(sids)).toEqual(new Set(expected));
      for (const m of thread) {
        const sid = m.messageSid;
        expect({ sid, ...m }).toEqual(
          expect.objectContaining({
            sid,
            id: acked.get(sid),
            direction: 'incoming',
            body: posted.get(sid)!.text,
            fromId: sender,
          }),
        );
      }
    }
  } finally {
    close();
  }
}

describe('kill -9 during concurrent ingestion', () => {
  const dataDir = tempDir('leadchat-crash-');
  // A tiny document cache: after each restart every message is read back from its page file.
  const env = { LEADCHAT_CACHE_DOCUMENTS: '50' };
  let gw: GatewayProcess;
  let account: TestAccount;

  beforeAll(async () => {
    gw = await startGateway(env, dataDir);
    account = await createAccount(gw);
  });

  afterAll(async () => {
    await gw?.kill();
    removeDir(dataDir);
  });

  test.each(KILL_AFTER.map((n, i) => [i + 1, n]))(
    'crash %i, after %i acknowledged messages',
    async (round, killAfter) => {
      const { ackedNow, inDoubt } = await ingestUntilKilled(gw, account.apiKey, round, killAfter);
      expect(ackedNow).toBeGreaterThanOrEqual(killAfter);

      gw = await startGateway(env, dataDir);
      // The store opened cleanly: no warning, no error logged while recovering.
      expect(gw.output()).not.toMatch(/warn|error|"level":(40|50|60)/i);
      await verify(gw, account.apiKey, inDoubt);
    },
  );

  test('a clean stop after the crashes flushes everything and the next start finds it', async () => {
    expect(await gw.stop()).toBe(0);
    gw = await startGateway(env, dataDir);
    expect(gw.output()).not.toMatch(/warn|error|"level":(40|50|60)/i);
    await verify(gw, account.apiKey, []);
    expect(acked.size).toBeGreaterThan(KILL_AFTER.reduce((a, b) => a + b, 0));
  });
});
