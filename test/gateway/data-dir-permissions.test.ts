import { existsSync, readdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { createAccount, keepAliveClient, removeDir, request, tempDir, type TestGateway } from '../helpers/gateway';
import { startInProcess, type InProcessGateway } from '../helpers/in-process';
import { logLines, type LogLine } from '../helpers/log-lines';

/**
 * A data dir the gateway's user may no longer change (its owner or mode changed under a gateway run as a service
 * user, an immutable attribute set on a file) is an outage as a full disk is: `/readyz` and `leadchat_store_up` say
 * so, the log names it without a stack and says what to fix, the store is back by itself once the files take writes
 * again, and nothing acknowledged is lost. Only a journal left in a state the store cannot know needs a restart:
 * `/healthz` says so.
 *
 * The tests run as root, whom neither an owner nor an attribute stops: the store's fault layer
 * (LEADCHAT_TEST_FULL_DISK) refuses its writes as the system would, with the code its flag file holds.
 */
jest.setTimeout(60_000);

const gateways: InProcessGateway[] = [];
const roots: string[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((gw) => gw.stop()));
  for (const root of roots.splice(0)) removeDir(root);
});

/** A folder of the test's own, removed after it. */
function folder(): string {
  const root = tempDir('leadchat-permissions-');
  roots.push(root);
  return root;
}

/** A gateway on a data dir whose faults the test sets: `refuse(code)` until `allow()`. */
async function faultyGateway() {
  const root = folder();
  const flag = path.join(root, 'fault');
  const dataDir = path.join(root, 'data');
  const gw = await start({ LEADCHAT_LOG_LEVEL: 'info', LEADCHAT_TEST_FULL_DISK: flag }, dataDir);
  return {
    gw,
    dataDir,
    refuse: (code: string) => writeFileSync(flag, code),
    allow: () => unlinkSync(flag),
  };
}

async function start(env: Record<string, string>, dataDir: string): Promise<InProcessGateway> {
  const gw = await startInProcess(env, dataDir);
  gateways.push(gw);
  return gw;
}

async function storeUp(gw: TestGateway): Promise<number> {
  const res = await request(gw, 'GET', '/metrics', { headers: { authorization: `Bearer ${gw.adminToken}` } });
  expect(res.status).toBe(200);
  const family = parsePrometheusTextFormat(res.text).find((f) => f.name === 'leadchat_store_up');
  return Number(family?.metrics[0]?.value);
}

/** Custom fields of about 80 kB: a hundred journal records of them make it due a checkpoint (8 MB). */
const LARGE = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, 'x'.repeat(2000)]));

const readiness = async (gw: TestGateway) => (await request(gw, 'GET', '/readyz')).status;

/** Polls `check` until it holds: the store looks at its disk again at most once a second, on its own clock. */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The lines telling the store's outages (away, back, a restart needed). */
const outageLines = (gw: TestGateway): LogLine[] =>
  logLines(gw.output()).filter((l) => /^the store (is unavailable|is available again|cannot recover)/.test(l.msg));

/** Restarts the gateway on its data dir: whether each contact it acknowledged is there, by id. */
async function keptAfterRestart(gw: InProcessGateway, apiKey: string, ids: string[]): Promise<string[]> {
  expect(await gw.stop()).toBe(0);
  const again = await start({}, gw.dataDir);
  const kept: string[] = [];
  for (const id of ids)
    if ((await request(again, 'GET', `/v1/contacts/${id}`, { apiKey })).status === 200) kept.push(id);
  return kept;
}

test('a data dir the gateway may no longer change (EACCES): the refused checkpoint makes /readyz 503 and leadchat_store_up 0, named without a stack; once writable the checkpoint runs and the store is back by itself, nothing lost', async () => {
  const { gw, dataDir, refuse, allow } = await faultyGateway();
  const account = await createAccount(gw);
  const client = keepAliveClient(gw, account.apiKey, 1);
  const created: string[] = [];
  try {
    refuse('EACCES');
    // Contacts of about 80 kB, until the journal is due a checkpoint (8 MB): its seal is refused. Commits into the
    // open journal go on meanwhile, as the system lets them.
    for (let n = 0; n < 200 && (n % 10 !== 0 || (await readiness(gw)) === 200); n++) {
      const reply = await client.call('POST', '/v1/contacts', {
        phone: `+1415556${String(n).padStart(4, '0')}`,
        customFields: LARGE,
      });
      expect(reply.status).toBe(201);
      created.push(reply.body.id as string);
    }
    expect(await readiness(gw)).toBe(503);
    expect(await storeUp(gw)).toBe(0);
    // The store recovers by itself: no restart is asked for.
    expect((await request(gw, 'GET', '/healthz')).status).toBe(200);
    const journal = path.join(dataDir, 'store', 'journal.log');
    const grown = statSync(journal).size;

    allow();
    await until('/readyz 200', async () => (await readiness(gw)) === 200);
    expect(await storeUp(gw)).toBe(1);
    // The checkpoint ran: the journal starts again, and no sealed one is left.
    expect(statSync(journal).size).toBeLessThan(grown);
    expect(readdirSync(path.join(dataDir, 'store')).filter((f) => /^journal\.\d+\.log$/.test(f))).toEqual([]);
  } finally {
    client.close();
  }

  const lines = outageLines(gw);
  expect(lines).toEqual([
    expect.objectContaining({
      level: 40,
      failure: 'permission_denied',
      reason: expect.stringMatching(/^EACCES/),
      remedy: expect.stringMatching(/write the data dir/),
    }),
    expect.objectContaining({ level: 30, failure: 'permission_denied', msg: 'the store is available again' }),
  ]);
  // Named, not a developer's puzzle: no stack anywhere, no failure of unknown class.
  expect(logLines(gw.output()).filter((l) => l.err !== undefined || l.failure === 'unknown')).toEqual([]);
  expect(await keptAfterRestart(gw, account.apiKey, created)).toEqual(created);
  expect(existsSync(path.join(dataDir, 'store', 'headroom.probe'))).toBe(false);
});

test('a journal the system refuses to write or cut (EPERM, an immutable file): writes 503 and /readyz 503 while /healthz stays 200; once it takes writes again the store answers without a restart, nothing lost', async () => {
  const { gw, refuse, allow } = await faultyGateway();
  const account = await createAccount(gw);
  const create = (n: number) =>
    request(gw, 'POST', '/v1/contacts', {
      apiKey: account.apiKey,
      body: { phone: `+1415557${String(n).padStart(4, '0')}` },
    });
  const created: string[] = [];
  for (let n = 0; n < 3; n++) created.push((await create(n)).body.id as string);

  refuse('EPERM');
  for (let n = 3; n < 6; n++) {
    const refused = await create(n);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('STORE_UNAVAILABLE');
  }
  expect(await readiness(gw)).toBe(503);
  expect(await storeUp(gw)).toBe(0);
  expect((await request(gw, 'GET', '/healthz')).status).toBe(200);

  allow();
  let n = 6;
  await until('a write kept again', async () => {
    const reply = await create(n++);
    if (reply.status === 201) created.push(reply.body.id as string);
    return reply.status === 201;
  });
  await until('/readyz 200', async () => (await readiness(gw)) === 200);
  expect(await storeUp(gw)).toBe(1);
  expect((await request(gw, 'GET', '/healthz')).status).toBe(200);

  expect(outageLines(gw)).toEqual([
    expect.objectContaining({
      level: 40,
      failure: 'permission_denied',
      reason: expect.stringMatching(/^EPERM/),
      remedy: expect.stringMatching(/chattr -i/),
    }),
    expect.objectContaining({ level: 30, failure: 'permission_denied', msg: 'the store is available again' }),
  ]);
  expect(logLines(gw.output()).filter((l) => l.err !== undefined || l.failure === 'unknown')).toEqual([]);
  expect(await keptAfterRestart(gw, account.apiKey, created)).toEqual(created);
});

test('a journal left in a state the store cannot know (a part of a record written, the file refusing to be cut back): /healthz 503 with the reason, so that a supervisor restarts it; the restart keeps every acknowledged write', async () => {
  const gw = await start({ LEADCHAT_LOG_LEVEL: 'info' }, folder());
  const account = await createAccount(gw);
  const create = (n: number) =>
    request(gw, 'POST', '/v1/contacts', {
      apiKey: account.apiKey,
      body: { phone: `+1415558${String(n).padStart(4, '0')}` },
    });
  const created = [(await create(0)).body.id as string, (await create(1)).body.id as string];

  // Fault injection: the next journal write stores half of its bytes, and the file then refuses every change.
  type File = { writeAll(data: Buffer): Promise<void>; truncate(length: number): Promise<void> };
  const file = (gw.engine.store as unknown as { journal: { file: File } }).journal.file;
  const writeAll = file.writeAll.bind(file);
  const denied = () => Object.assign(new Error('EPERM: operation not permitted, write'), { code: 'EPERM' });
  file.writeAll = async (data) => {
    await writeAll(data.subarray(0, Math.floor(data.length / 2)));
    throw denied();
  };
  file.truncate = () => Promise.reject(denied());

  expect((await create(2)).status).toBe(503);
  const health = await request(gw, 'GET', '/healthz');
  expect(health.status).toBe(503);
  expect(health.body).toEqual({ status: 'failed', reason: expect.stringMatching(/restart the gateway/) });
  expect(await readiness(gw)).toBe(503);
  expect(outageLines(gw)).toEqual([
    expect.objectContaining({ level: 40, failure: 'permission_denied', reason: expect.stringMatching(/^EPERM/) }),
    expect.objectContaining({
      level: 50,
      failure: 'permission_denied',
      msg: expect.stringMatching(/without a restart/),
    }),
  ]);

  expect(await keptAfterRestart(gw, account.apiKey, created)).toEqual(created);
});
