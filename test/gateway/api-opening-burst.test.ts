import { BACKEND, listAll, removeDir, tempDir } from '../helpers/gateway';
import { startInProcess, type InProcessGateway } from '../helpers/in-process';
import { api, createAccount, poll, uniquePhone, type TestAccount, type TestGateway } from './api-support';

/**
 * A burst of 60 additions to the list of a Live campaign (spec §3.2): 3 opening messages at once, 57 paced at the
 * campaign's rate, none twice, while the gateway restarts in the middle. The gateways run in this process on the test
 * clock (a slot is a jump of the clock), so a busy machine moves no send: on lowdb one stops and starts again on its
 * data dir; on PostgreSQL two share the database, and one stops and starts again while the other goes on. The sends
 * whose slots passed while no process could run them go when one can: a catch-up of those only, after which the
 * queue keeps its slots. (A process killed while it holds jobs, whose jobs go once their lease expires, is
 * scale-out.test.ts's.)
 */

jest.setTimeout(120_000);

const RATE = '300/m';
const INTERVAL_MS = 200;
const LEASE_MS = 3000;
const ADDITIONS = 60;
/** Every process of the deployment: a short lease, so the work of a stopped process is soon taken over. */
const JOBS = { LEADCHAT_JOB_POLL: '200ms', LEADCHAT_JOB_LEASE: '3s', LEADCHAT_WEBHOOK_TIMEOUT: '2s' };

interface Deployment {
  gws: InProcessGateway[];
  /** Stops a process mid-burst and starts it again. */
  restart(): Promise<void>;
  /** Stops every process, lets `ms` pass, and starts them again: nothing runs jobs meanwhile. */
  outage(ms: number): Promise<void>;
  /** Epoch ms on the deployment's clock: the times its messages carry. */
  now(): number;
  /** Lets `ms` pass on the deployment's clock, and what came due in it run. */
  wait(ms: number): Promise<void>;
  close(): Promise<void>;
}

async function startDeployment(): Promise<Deployment> {
  const dataDir = tempDir();
  const gws: InProcessGateway[] = [await startInProcess(JOBS, dataDir)];
  // On PostgreSQL a second process of the deployment: the same database, its own runners.
  const second = { ...JOBS, LEADCHAT_DATABASE_URL: gws[0]!.env.LEADCHAT_DATABASE_URL ?? '' };
  const others = BACKEND === 'postgres' ? 1 : 0;
  for (let i = 0; i < others; i++) gws.push(await startInProcess(second));
  const stopped: string[] = [];
  const stop = async (i: number) => {
    expect(await gws[i]!.stop()).toBe(0);
    if (i > 0) stopped.push(gws[i]!.dataDir);
  };
  const start = async (i: number) => {
    gws[i] = i === 0 ? await startInProcess(JOBS, dataDir) : await startInProcess(second);
  };
  return {
    gws,
    restart: async () => {
      await stop(0);
      await start(0);
    },
    outage: async (ms) => {
      for (let i = 0; i < gws.length; i++) await stop(i);
      await gws[0]!.advance(ms);
      for (let i = 0; i < gws.length; i++) await start(i);
    },
    now: () => gws[0]!.now(),
    wait: async (ms) => {
      const until = gws[0]!.now() + ms;
      for (;;) {
        for (const gw of gws) await gw.drain();
        const due = Math.min(...(await Promise.all(gws.map(async (gw) => (await gw.nextDueAt()) ?? Infinity))));
        if (due > until) return;
        if (due > gws[0]!.now()) await gws[0]!.advance(due - gws[0]!.now());
        else if (!gws.some((gw) => gw.working())) return;
      }
    },
    close: async () => {
      for (const gw of gws) {
        await gw.stop();
        removeDir(gw.dataDir);
      }
      for (const dir of stopped) removeDir(dir);
    },
  };
}

/** Every conversation of the campaign, over all pages. */
const conversationsOf = (gw: TestGateway, account: TestAccount, campaignId: string) =>
  listAll(gw, account.apiKey, '/conversations', `&campaignId=${campaignId}`);

test(`${ADDITIONS} additions at once with a restart in the middle: 3 at once, the rest paced at the campaign's rate, none twice`, async () => {
  const deployment = await startDeployment();
  const on = (i: number) => deployment.gws[i % deployment.gws.length]!;
  try {
    const account = await createAccount(on(0));
    const list = (await api(on(0), account, 'POST', 'lists', { body: { name: 'Burst' } })).body;
    const campaign = (
      await api(on(0), account, 'POST', 'campaigns', {
        body: {
          name: 'Burst',
          channel: 'sms',
          listId: list.id,
          openingMessage: 'Hi {{first_name|there}}!',
          triggerOnNewContacts: true,
          status: 'live',
          sendRate: RATE,
        },
      })
    ).body;
    const contacts = await Promise.all(
      Array.from(
        { length: ADDITIONS },
        async (_, i) =>
          (await api(on(i), account, 'POST', 'contacts', { body: { phone: uniquePhone(), firstName: `Lead ${i}` } }))
            .body,
      ),
    );

    const added = deployment.now();
    const additions = await Promise.all(
      contacts.map((c, i) => api(on(i), account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: c.id } })),
    );
    expect(additions.map((r) => r.status)).toEqual(Array(ADDITIONS).fill(201));

    const sentCount = async () =>
      (await conversationsOf(on(1), account, campaign.id)).filter((c) => c.opening?.status === 'sent').length;
    expect(await poll(sentCount, (n) => n >= 30, 30_000)).toBeGreaterThanOrEqual(30);
    const stoppedAt = deployment.now();
    await deployment.restart();
    const restartedAt = deployment.now();

    const conversations = await poll(
      () => conversationsOf(on(0), account, campaign.id),
      (all) => all.length === ADDITIONS && all.every((c) => c.opening?.status === 'sent'),
      90_000,
    );
    expect(conversations.map((c) => c.opening.status)).toEqual(Array(ADDITIONS).fill('sent'));

    // One opening message per contact, and only one, a while after the last.
    await deployment.wait(1000);
    const messages = (
      await Promise.all(
        contacts.map(async (c, i) =>
          ((await api(on(i), account, 'GET', `contacts/${c.id}/messages`)).body.data as any[]).filter(
            (m) => m.direction === 'outgoing',
          ),
        ),
      )
    ).flat();
    expect(messages).toHaveLength(ADDITIONS);
    expect(new Set(messages.map((m) => m.contactId)).size).toBe(ADDITIONS);
    expect(messages.every((m) => m.author === 'campaign' && m.status === 'sent' && m.campaignId === campaign.id)).toBe(
      true,
    );

    const times = messages.map((m) => Date.parse(m.createdAt)).sort((a, b) => a - b);
    // 3 at once, as soon as they are added.
    expect(times.slice(0, 3).every((t) => t - added < 3000)).toBe(true);
    // The other 57 at the campaign's rate: the n-th of them no sooner than n intervals after the first addition
    // (a send never goes before its slot; a late one, after a busy moment or the restart, only goes later).
    const paced = times.slice(3);
    const early = paced
      .map((t, k) => ({ k, aheadMs: (k + 1) * INTERVAL_MS - (t - added) }))
      .filter((e) => e.aheadMs > 50);
    expect(early).toEqual([]);
    // The catch-up of the sends whose slots passed while the gateway was down is as long as that time, no longer.
    const catchUp = { from: stoppedAt, to: restartedAt + LEASE_MS + 1000 };
    const caughtUp = paced.filter((t) => t >= catchUp.from && t <= catchUp.to).length;
    expect(caughtUp).toBeLessThanOrEqual(Math.ceil((catchUp.to - catchUp.from) / INTERVAL_MS) + 1);
  } finally {
    await deployment.close();
  }
});

test('what came due during an outage longer than 10 s is paced from the restart, not sent in a rush', async () => {
  const deployment = await startDeployment();
  const on = (i: number) => deployment.gws[i % deployment.gws.length]!;
  try {
    const account = await createAccount(on(0));
    const list = (await api(on(0), account, 'POST', 'lists', { body: { name: 'Outage' } })).body;
    const campaign = (
      await api(on(0), account, 'POST', 'campaigns', {
        body: {
          name: 'Outage',
          channel: 'sms',
          listId: list.id,
          openingMessage: 'Hi!',
          triggerOnNewContacts: true,
          status: 'live',
          sendRate: RATE,
        },
      })
    ).body;
    const contacts = await Promise.all(
      Array.from(
        { length: 40 },
        async (_, i) => (await api(on(i), account, 'POST', 'contacts', { body: { phone: uniquePhone() } })).body,
      ),
    );
    await Promise.all(
      contacts.map((c, i) => api(on(i), account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: c.id } })),
    );
    const sentCount = async () =>
      (await conversationsOf(on(0), account, campaign.id)).filter((c) => c.opening?.status === 'sent').length;
    await poll(sentCount, (n) => n >= 6, 20_000);

    // 12 s without any process: the 30-odd sends left all come due meanwhile.
    await deployment.outage(12_000);
    const restartedAt = deployment.now();
    await poll(sentCount, (n) => n === 40, 60_000);

    const times = (
      await Promise.all(
        contacts.map(async (c, i) =>
          ((await api(on(i), account, 'GET', `contacts/${c.id}/messages`)).body.data as any[]).filter(
            (m) => m.direction === 'outgoing',
          ),
        ),
      )
    )
      .flat()
      .map((m) => Date.parse(m.createdAt));
    expect(times).toHaveLength(40);
    // After the restart: a new burst of 3 at most, then one per interval, the n-th (from 0) no sooner than n - 3
    // intervals after the gateway was back (a second earlier at most: its job runner starts before it listens).
    const after = times.filter((t) => t >= restartedAt - 1000).sort((a, b) => a - b);
    // Sends go on while the processes stop (a busy machine stops them slower): a third of them at least are left.
    expect(after.length).toBeGreaterThanOrEqual(13);
    const early = after
      .map((t, n) => ({ n, aheadMs: (n - 3) * INTERVAL_MS - (t - (restartedAt - 1000)) }))
      .filter((e) => e.aheadMs > 0);
    expect(early).toEqual([]);
  } finally {
    await deployment.close();
  }
});
