import path from 'node:path';
import { createAccount, removeDir, request, tempDir, type Reply } from '../helpers/gateway';
import { startInProcess, type InProcessGateway } from '../helpers/in-process';
import { api, HANDOFF_NOTICE, incoming, Receiver } from './api-support';
import { gatewayModule } from '../helpers/gateway-modules';

type GatewayModule = typeof import('../../gateway/src/gateway.js', { with: { 'resolution-mode': 'import' } });
type ClockModule = typeof import('../../gateway/src/clock.js', { with: { 'resolution-mode': 'import' } });
type ConfigModule = typeof import('../../gateway/src/config.js', { with: { 'resolution-mode': 'import' } });
type LogModule = typeof import('../../gateway/src/log.js', { with: { 'resolution-mode': 'import' } });

/**
 * The factory every gateway is made by (gateway/src/gateway.ts), as the tests' in-process gateways use it: on a
 * manual clock nothing happens until the clock is moved, drain() runs what is due then and nothing else, and a
 * stopped gateway leaves nothing open in the process.
 */
const DIST = path.resolve(__dirname, '../../gateway/dist');
const HOUR = 3_600_000;

/** The operator's view of the jobs waiting, by kind, with their due times. */
async function pending(gw: InProcessGateway): Promise<Array<{ kind: string; runAt: string | null }>> {
  const res: Reply = await request(gw, 'GET', '/admin/v1/jobs', {
    headers: { authorization: `Bearer ${gw.adminToken}` },
    query: { status: 'pending', limit: '200' },
  });
  expect(res.status).toBe(200);
  return res.body.data;
}

/**
 * The process's open handles (servers, sockets, referenced timers), counted by kind. A file read or write in flight
 * (jest's own among them) ends by itself: not counted.
 */
function openHandles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo())
    if (!kind.startsWith('FSReq')) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

describe('a gateway on the manual clock', () => {
  let gw: InProcessGateway;
  beforeAll(async () => {
    gw = await startInProcess();
  });
  afterAll(async () => {
    await gw.stop();
    removeDir(gw.dataDir);
  });

  test('its clock stands still while requests are served and real time passes, until the test moves it', async () => {
    const before = gw.now();
    await createAccount(gw);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(gw.now()).toBe(before);
    const health: Reply = await request(gw, 'GET', '/healthz');
    expect(health.status).toBe(200);
    expect(gw.now()).toBe(before);

    await gw.advance('90s');
    expect(gw.now()).toBe(before + 90_000);
  });

  test('drain() runs the jobs due now, and none due later, however long real time it takes', async () => {
    await gw.drain();
    // The hourly housekeeping, queued at start: due an hour after the clock's start, not yet.
    const [housekeeping] = (await pending(gw)).filter((job) => job.kind === 'housekeeping');
    const dueAt = Date.parse(housekeeping!.runAt!);
    expect(dueAt).toBeGreaterThan(gw.now());
    expect(await gw.drain()).toBe(0);

    await gw.advance(dueAt - gw.now() - 1);
    expect(await gw.drain()).toBe(0);
    expect((await pending(gw)).filter((job) => job.kind === 'housekeeping')).toEqual([housekeeping]);

    await gw.advance(1);
    expect(await gw.drain()).toBe(1);
    // It ran, and put itself back an hour later on the gateway's clock.
    expect((await pending(gw)).filter((job) => job.kind === 'housekeeping')).toEqual([
      { ...housekeeping, runAt: new Date(gw.now() + HOUR).toISOString(), updatedAt: new Date(gw.now()).toISOString() },
    ]);
    expect(await gw.drain()).toBe(0);
  });

  test('settle() runs what falls due within its horizon, moving the clock to it, and nothing beyond', async () => {
    const start = gw.now();
    await gw.settle(HOUR - 1);
    expect(gw.now()).toBe(start);
    await gw.settle(HOUR);
    expect(gw.now()).toBe(start + HOUR);
    expect((await pending(gw)).filter((job) => job.kind === 'housekeeping')).toEqual([
      expect.objectContaining({ runAt: new Date(start + 2 * HOUR).toISOString() }),
    ]);
  });
});

test('drain() waits for a job running before it began, and for what that job queues in another queue', async () => {
  // The web chat's receiver holds the bot's answer, then refuses it: its hand-off queues the contact's notice.
  const replies = await Receiver.start((n) => (n === 1 ? undefined : { status: 200 }));
  const gw = await startInProcess({ LEADCHAT_BOT_DEBOUNCE: '0s' });
  try {
    const account = await createAccount(gw);
    const faqs = [{ question: 'What are your opening hours?', answer: 'We are open 9 to 5.' }];
    const campaign = await api(gw, account, 'POST', 'campaigns', {
      body: { name: 'Clinic', channel: 'custom', customChannel: 'web-chat', bot: { faqs } },
    });
    const steps = [
      campaign,
      await api(gw, account, 'PUT', 'settings', { body: { customChannelWebhookUrl: replies.url } }),
      await api(gw, account, 'PUT', 'settings/bot', { body: { defaultCampaignId: campaign.body.id } }),
      await api(gw, account, 'POST', 'incoming_custom_channel_message', {
        body: incoming({ channel: 'web-chat', body: 'What are your opening hours?' }),
      }),
    ];
    expect(steps.map((step) => step.status)).toEqual([201, 200, 200, 200]);
    // The answer's delivery runs, as the runner's own wake-up launched it.
    await replies.waitFor(1);
    const drained = gw.drain();
    replies.release(410);
    expect(await drained).toBeGreaterThan(0);
    expect(gw.working()).toBe(false);
    expect(await gw.nextDueAt()).toBeGreaterThan(gw.now());
    expect(replies.requests.map((r) => r.body.body)).toEqual(['We are open 9 to 5.', HANDOFF_NOTICE]);
  } finally {
    await gw.stop();
    await replies.close();
    removeDir(gw.dataDir);
  }
});

test('a second gateway in the process shares the clock, and one on another clock is refused', async () => {
  const first = await startInProcess();
  const second = await startInProcess();
  try {
    await first.advance('1m');
    expect(second.now()).toBe(first.now());

    const { createGateway } = (await gatewayModule(path.join(DIST, 'gateway.js'))) as GatewayModule;
    const { manualClock } = (await gatewayModule(path.join(DIST, 'clock.js'))) as ClockModule;
    const { loadConfig } = (await gatewayModule(path.join(DIST, 'config.js'))) as ConfigModule;
    const { createLogger } = (await gatewayModule(path.join(DIST, 'log.js'))) as LogModule;
    const dataDir = tempDir();
    const config = loadConfig({
      LEADCHAT_DATA_DIR: dataDir,
      LEADCHAT_ADMIN_TOKEN: first.adminToken,
      ...backendOf(first),
    });
    await expect(
      createGateway({ config, log: createLogger('silent'), clock: manualClock(first.now() + 1) }),
    ).rejects.toThrow('Another gateway of this process runs on another clock');
    removeDir(dataDir);
  } finally {
    await first.stop();
    await second.stop();
    removeDir(first.dataDir);
    removeDir(second.dataDir);
  }
});

test("once the process's last gateway has stopped, its time is the system's again, and another clock may be held", async () => {
  const { clockNow, holdClock, manualClock } = (await gatewayModule(path.join(DIST, 'clock.js'))) as ClockModule;
  const gw = await startInProcess();
  await gw.advance('1d');
  expect(clockNow()).toBe(gw.now());
  await gw.stop();
  removeDir(gw.dataDir);
  // Compared, not waited for: a day ahead before, the system's time after.
  expect(Math.abs(clockNow() - Date.now())).toBeLessThan(60_000);
  const release = holdClock(manualClock(0));
  expect(clockNow()).toBe(0);
  release();
});

test('a stopped gateway leaves nothing open: no server, socket, timer or database connection', async () => {
  const before = openHandles();
  const gw = await startInProcess();
  const account = await createAccount(gw);
  const res: Reply = await request(gw, 'GET', '/v1/contacts/ct_none', { apiKey: account.apiKey });
  expect(res.status).toBe(404);
  expect(openHandles()).not.toEqual(before);
  expect(await gw.stop()).toBe(0);
  removeDir(gw.dataDir);
  // The sockets of the test's own requests close on their own schedule: counted once they have. Handles of earlier
  // tests (a database connection of the test's own, closing) may go meanwhile: none may be more than before.
  const more = () => Object.entries(openHandles()).filter(([kind, count]) => count > (before[kind] ?? 0));
  for (let tries = 0; tries < 100 && more().length > 0; tries++)
    await new Promise((resolve) => setTimeout(resolve, 20));
  expect(more()).toEqual([]);
});

/** The database settings of an in-process gateway, for another gateway made beside it. */
const backendOf = (gw: InProcessGateway): Record<string, string> =>
  gw.env.LEADCHAT_DATABASE_URL ? { LEADCHAT_DATABASE_URL: gw.env.LEADCHAT_DATABASE_URL } : {};
