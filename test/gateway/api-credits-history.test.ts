import { consoleAccount, signIn } from '../console/support';
import { openStream } from '../helpers/event-stream';
import { removeDir, tempDir } from '../helpers/gateway';
import { startInProcess, type InProcessGateway } from '../helpers/in-process';
import { forgetDone, openStoreOf } from '../helpers/stopped-store';
import {
  advanceClock,
  api,
  createAccount,
  expectApiError,
  unique,
  uniquePhone,
  untilIdle,
  useGateway,
  type TestAccount,
} from './api-support';

/**
 * Credits in sight: the account's credit history a page at a time (grants, recharges, and what each message cost,
 * by its kind and channel), the low-balance threshold the account sets, and a campaign's openings: what one costs
 * before going Live, those that failed, and their retry.
 */
const ENV = { LEADCHAT_TEST_CLOCK: '1', LEADCHAT_PRICE_WHATSAPP: '2' };
const ctx = useGateway(ENV);

const restarted: InProcessGateway[] = [];
afterAll(async () => {
  for (const gw of restarted) {
    await gw.stop();
    removeDir(gw.dataDir);
  }
});

async function subAccount(credits: number) {
  const agency = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  const sub = await createAccount(ctx.gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
  if (credits) await grant(agency, sub, credits);
  return { agency, sub };
}

const grant = (agency: TestAccount, sub: TestAccount, amount: number) =>
  api(ctx.gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount } });

async function campaign(account: TestAccount, fields: Record<string, unknown> = {}) {
  const list = (await api(ctx.gw, account, 'POST', 'lists', { body: { name: 'Leads' } })).body;
  const created = (
    await api(ctx.gw, account, 'POST', 'campaigns', {
      body: {
        name: 'Funnel',
        channel: 'sms',
        listId: list.id,
        openingMessage: 'Hi {{first_name}}!',
        triggerOnNewContacts: true,
        status: 'live',
        ...fields,
      },
    })
  ).body;
  return { list, campaign: created };
}

async function addLeads(account: TestAccount, listId: string, n: number) {
  for (let i = 0; i < n; i++) {
    const contact = (
      await api(ctx.gw, account, 'POST', 'contacts', { body: { phone: uniquePhone(), firstName: `Lead ${i}` } })
    ).body;
    await api(ctx.gw, account, 'POST', `lists/${listId}/contacts`, { body: { contactId: contact.id } });
  }
  await untilIdle(ctx.gw);
}

const history = (account: TestAccount, query: Record<string, string> = {}) =>
  api(ctx.gw, account, 'GET', 'credits/history', { query });
const openings = (account: TestAccount, campaignId: string) =>
  api(ctx.gw, account, 'GET', `campaigns/${campaignId}/openings`);

test("the history pages newest first: grants, the recharge that answered an auto-recharge request, and each message's cost by kind and channel", async () => {
  const { agency, sub } = await subAccount(3);
  await api(ctx.gw, agency, 'PUT', 'subaccounts/auto-recharge', {
    body: { email: sub.email, threshold: 2, amount: 10 },
  });
  const { list } = await campaign(sub);
  await addLeads(sub, list.id, 2);
  // The balance went under 2: the agency was asked, and its grant is the recharge.
  expect((await api(ctx.gw, sub, 'GET', 'credits')).body.autoRecharge).toMatchObject({ pending: true });
  await grant(agency, sub, 10);

  const first = await history(sub, { limit: '2' });
  expect(first.status).toBe(200);
  expect(first.body.data).toEqual([
    {
      id: expect.any(String),
      kind: 'recharge',
      amount: 10,
      balance: 11,
      description: null,
      messageId: null,
      messageKind: null,
      channel: null,
      subAccount: null,
      createdAt: expect.stringMatching(/Z$/),
    },
    {
      id: expect.any(String),
      kind: 'usage',
      amount: -1,
      balance: 1,
      description: 'campaign message on sms',
      messageId: expect.stringMatching(/^msg_/),
      messageKind: 'campaign',
      channel: 'sms',
      subAccount: null,
      createdAt: expect.any(String),
    },
  ]);
  expect(first.body.nextCursor).toEqual(expect.any(String));
  const second = await history(sub, { limit: '2', cursor: first.body.nextCursor });
  expect(second.body.data.map((e: any) => [e.kind, e.amount, e.balance, e.messageKind])).toEqual([
    ['usage', -1, 2, 'campaign'],
    ['grant', 3, 3, null],
  ]);
  expect(second.body.nextCursor).toBeNull();

  // A later grant, with no request waiting, is a grant again.
  await grant(agency, sub, 1);
  expect((await history(sub, { limit: '1' })).body.data[0]).toMatchObject({ kind: 'grant', amount: 1, balance: 12 });

  // One kind at a time: grants and recharges are told apart, as the history shows them.
  const amounts = async (query: Record<string, string>) =>
    (await history(sub, query)).body.data.map((e: any) => [e.kind, e.amount]);
  expect(await amounts({ kind: 'grant' })).toEqual([
    ['grant', 1],
    ['grant', 3],
  ]);
  expect(await amounts({ kind: 'recharge' })).toEqual([['recharge', 10]]);
  expect(await amounts({ kind: 'usage' })).toEqual([
    ['usage', -1],
    ['usage', -1],
  ]);
  expect(await amounts({ kind: 'refund' })).toEqual([]);

  // Another account's cursor is refused; its history is its own.
  const other = await createAccount(ctx.gw);
  expectApiError(await history(other, { cursor: first.body.nextCursor }), 400, 'INVALID_CURSOR');
  expect((await history(other)).body).toEqual({ data: [], nextCursor: null });
  expectApiError(await history(sub, { limit: '0' }), 400, 'VALIDATION_ERROR');
});

/** The day of an instant in a time zone, YYYY-MM-DD. */
const localDay = (at: string, timeZone: string) => new Date(at).toLocaleDateString('en-CA', { timeZone });

test("an accountant's history: one kind, the days from one date to another in a time zone, pages that keep their filters; bad filters are a 400 naming them", async () => {
  const { agency, sub } = await subAccount(3);
  const first = (await history(sub)).body.data[0];
  await advanceClock(ctx.gw, '48h');
  const { list } = await campaign(sub);
  await addLeads(sub, list.id, 1);
  const spent = (await history(sub, { kind: 'usage' })).body.data[0];
  await advanceClock(ctx.gw, '48h');
  await grant(agency, sub, 2);
  const last = (await history(sub, { limit: '1' })).body.data[0];
  const ids = async (query: Record<string, string>, account = sub, path = 'credits/history') => {
    const res = await api(ctx.gw, account, 'GET', path, { query });
    expect(res.status).toBe(200);
    return res.body.data.map((e: any) => e.id);
  };

  const day = (e: any) => e.createdAt.slice(0, 10);
  expect(await ids({ from: day(spent), to: day(spent) })).toEqual([spent.id]);
  // From a day on (to today), and up to a day (from a year before).
  expect(await ids({ from: day(spent) })).toEqual([last.id, spent.id]);
  expect(await ids({ to: day(spent) })).toEqual([spent.id, first.id]);
  expect(await ids({ kind: 'grant', from: day(first), to: day(last) })).toEqual([last.id, first.id]);
  expect(await ids({ kind: 'usage', to: day(first) })).toEqual([]);

  // The days are those of the time zone named: the usage's day at UTC+14 is another day at UTC-11.
  const kiritimati = localDay(spent.createdAt, 'Pacific/Kiritimati');
  const inZone = (timezone: string) => ids({ kind: 'usage', from: kiritimati, to: kiritimati, timezone });
  expect(await inZone('Pacific/Kiritimati')).toEqual([spent.id]);
  expect(await inZone('Pacific/Pago_Pago')).toEqual([]);

  // Pages keep the filters their cursor was given with; another filter refuses the cursor.
  const page1 = (await history(sub, { kind: 'grant', from: day(first), limit: '1' })).body;
  expect(page1.data.map((e: any) => e.id)).toEqual([last.id]);
  const page2 = (await history(sub, { kind: 'grant', from: day(first), limit: '1', cursor: page1.nextCursor })).body;
  expect(page2).toEqual({ data: [expect.objectContaining({ id: first.id })], nextCursor: null });
  expectApiError(
    await history(sub, { kind: 'usage', from: day(first), cursor: page1.nextCursor }),
    400,
    'INVALID_CURSOR',
  );

  // The agency reads the sub-account's with the same filters.
  expect(await ids({ kind: 'usage' }, agency, `subaccounts/${sub.id}/credits/history`)).toEqual([spent.id]);
  expect(await ids({ from: day(last) }, agency, `subaccounts/${sub.id}/credits/history`)).toEqual([last.id]);

  const refused = async (query: Record<string, string>, field: string) => {
    const res = await history(sub, query);
    expectApiError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.fields.map((f: any) => f.field)).toEqual([field]);
  };
  await refused({ kind: 'bonus' }, 'kind');
  await refused({ kind: 'grant,usage' }, 'kind');
  await refused({ from: '2026-13-01' }, 'from');
  await refused({ to: 'yesterday' }, 'to');
  await refused({ from: '2026-02-30' }, 'from');
  await refused({ from: '2026-03-02', to: '2026-03-01' }, 'from');
  await refused({ from: '2024-01-01', to: '2026-01-01' }, 'from');
  await refused({ from: '2026-03-01', timezone: 'Mars/Olympus' }, 'timezone');
});

test("an agency's own history lists each grant it made to a sub-account, as credits that left it, with the sub-account named; its balance is not debited", async () => {
  const agency = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  const acme = await createAccount(ctx.gw, { parentEmail: agency.email, name: 'Acme Dental' });
  const bolt = await createAccount(ctx.gw, { parentEmail: agency.email, name: 'Bolt Gyms' });
  await grant(agency, acme, 5);
  await advanceClock(ctx.gw, '48h');
  await api(ctx.gw, agency, 'POST', 'subaccounts/credits', {
    body: { email: bolt.email, amount: 2.5, description: 'November top-up' },
  });

  const own = await history(agency);
  expect(own.status).toBe(200);
  expect(own.body).toEqual({
    data: [
      {
        id: expect.any(String),
        kind: 'granted',
        amount: -2.5,
        balance: null,
        description: 'November top-up',
        messageId: null,
        messageKind: null,
        channel: null,
        subAccount: { id: bolt.id, name: 'Bolt Gyms' },
        createdAt: expect.stringMatching(/Z$/),
      },
      expect.objectContaining({ kind: 'granted', amount: -5, subAccount: { id: acme.id, name: 'Acme Dental' } }),
    ],
    nextCursor: null,
  });
  // The gateway does not debit an agency for what it grants.
  expect((await api(ctx.gw, agency, 'GET', 'credits')).body.balance).toBe(0);

  // Filtered and paged like the rest of the history.
  const [latest, earlier] = own.body.data;
  expect((await history(agency, { kind: 'granted' })).body.data).toEqual([latest, earlier]);
  expect((await history(agency, { kind: 'grant' })).body.data).toEqual([]);
  const day = earlier.createdAt.slice(0, 10);
  expect((await history(agency, { from: day, to: day })).body.data).toEqual([earlier]);
  const page1 = (await history(agency, { limit: '1' })).body;
  expect(page1.data).toEqual([latest]);
  expect((await history(agency, { limit: '1', cursor: page1.nextCursor })).body).toEqual({
    data: [earlier],
    nextCursor: null,
  });

  // The sub-account's history shows the grant received, as before; another agency sees none of it.
  expect((await history(acme)).body.data).toEqual([
    expect.objectContaining({ id: earlier.id, kind: 'grant', amount: 5, balance: 5, subAccount: null }),
  ]);
  const stranger = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  expect((await history(stranger)).body).toEqual({ data: [], nextCursor: null });
});

test("GET /v1/credits lists the lines of the credit history, an agency's grants to its sub-accounts among them", async () => {
  const { agency, sub } = await subAccount(5);
  const other = await createAccount(ctx.gw, { parentEmail: agency.email, name: 'Bolt Gyms' });
  await advanceClock(ctx.gw, '1h');
  await grant(agency, other, 2.5);

  const own = (await history(agency)).body;
  expect(own.data.map((line: any) => [line.kind, line.amount])).toEqual([
    ['granted', -2.5],
    ['granted', -5],
  ]);
  const credits = await api(ctx.gw, agency, 'GET', 'credits');
  expect(credits.status).toBe(200);
  expect(credits.body.transactions).toEqual(own.data);
  // A sub-account's, read by itself or by its agency, are the lines of its history too.
  const subHistory = (await history(sub)).body.data;
  expect(subHistory).toEqual([expect.objectContaining({ kind: 'grant', amount: 5, balance: 5 })]);
  expect((await api(ctx.gw, sub, 'GET', 'credits')).body.transactions).toEqual(subHistory);
  const byAgency = await api(ctx.gw, agency, 'GET', `subaccounts/${sub.id}/credits`);
  expect(byAgency.body.transactions).toEqual(subHistory);
  // Left out on request, as before.
  expect((await api(ctx.gw, agency, 'GET', 'credits', { query: { transactions: 'false' } })).body).not.toHaveProperty(
    'transactions',
  );
});

test('entries an earlier release stored, with no day of their own, are found by their dates after an upgrade', async () => {
  const dataDir = tempDir();
  let gw = await startInProcess(ENV, dataDir);
  const agency = await createAccount(gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  const sub = await createAccount(gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
  await api(gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 4 } });
  const [entry] = (await api(gw, sub, 'GET', 'credits/history')).body.data;
  await advanceClock(gw, '48h');
  await api(gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 1 } });
  expect(await gw.stop()).toBe(0);

  // As the earlier release left it: the entry holds no day, and no start gave it one since.
  const store = await openStoreOf(gw.env);
  await store.transact(async (tx) => {
    await tx.update<{ id: string; day?: string | null }>('transactions', entry.id, { day: null });
  });
  await store.close();
  await forgetDone(gw.env, ['credit-days-1']);

  gw = await startInProcess(ENV, dataDir);
  restarted.push(gw);
  await untilIdle(gw);
  const day = entry.createdAt.slice(0, 10);
  const found = await api(gw, sub, 'GET', 'credits/history', { query: { from: day, to: day } });
  expect(found.body.data).toEqual([entry]);
}, 60_000);

test('the low-balance threshold: set by the account, lowBalance while the balance is under it, cleared with null', async () => {
  const { agency, sub } = await subAccount(3);
  expect((await api(ctx.gw, sub, 'GET', 'credits')).body).toMatchObject({
    balance: 3,
    lowBalanceThreshold: null,
    lowBalance: false,
  });

  const set = await api(ctx.gw, sub, 'PUT', 'credits/low-balance', { body: { threshold: 5 } });
  expect(set.status).toBe(200);
  expect(set.body).toEqual({ balance: 3, lowBalanceThreshold: 5, lowBalance: true });
  expect((await api(ctx.gw, sub, 'GET', 'credits')).body).toMatchObject({ lowBalanceThreshold: 5, lowBalance: true });
  // The agency sees the sub-account's state too.
  expect((await api(ctx.gw, agency, 'GET', `subaccounts/${sub.id}/credits`)).body).toMatchObject({
    lowBalanceThreshold: 5,
    lowBalance: true,
  });

  await grant(agency, sub, 2);
  expect((await api(ctx.gw, sub, 'GET', 'credits')).body).toMatchObject({ balance: 5, lowBalance: false });

  // Spent under it again.
  const { list } = await campaign(sub);
  await addLeads(sub, list.id, 1);
  expect((await api(ctx.gw, sub, 'GET', 'credits')).body).toMatchObject({ balance: 4, lowBalance: true });

  expect((await api(ctx.gw, sub, 'PUT', 'credits/low-balance', { body: { threshold: null } })).body).toEqual({
    balance: 4,
    lowBalanceThreshold: null,
    lowBalance: false,
  });
  expect((await api(ctx.gw, sub, 'GET', 'credits')).body).toMatchObject({
    lowBalanceThreshold: null,
    lowBalance: false,
  });
});

test('a bad threshold is a 400 naming it, and nothing changes', async () => {
  const { sub } = await subAccount(1);
  await api(ctx.gw, sub, 'PUT', 'credits/low-balance', { body: { threshold: 2.5 } });
  for (const body of [{ threshold: -1 }, { threshold: 0.001 }, { threshold: '5' }, {}, { threshold: 2_000_000_000 }]) {
    const res = await api(ctx.gw, sub, 'PUT', 'credits/low-balance', { body });
    expectApiError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.message).toMatch(/^threshold: /);
  }
  expect((await api(ctx.gw, sub, 'GET', 'credits')).body).toMatchObject({ lowBalanceThreshold: 2.5, lowBalance: true });
});

test('an account that pays for nothing is never low, whatever its threshold', async () => {
  const standalone = await createAccount(ctx.gw);
  expect((await api(ctx.gw, standalone, 'PUT', 'credits/low-balance', { body: { threshold: 10 } })).body).toEqual({
    balance: 0,
    lowBalanceThreshold: 10,
    lowBalance: false,
  });
  expect((await api(ctx.gw, standalone, 'GET', 'credits')).body).toEqual({
    balance: 0,
    lowBalanceThreshold: 10,
    lowBalance: false,
    transactions: [],
  });
});

test("a campaign's openings: the price of one and the balance before going Live, for SMS by segment and WhatsApp by message; nothing for an account that is not charged", async () => {
  const { sub } = await subAccount(4);
  const sms = (await campaign(sub, { status: 'draft' })).campaign;
  expect((await openings(sub, sms.id)).body).toEqual({
    campaignId: sms.id,
    price: 1,
    balance: 4,
    charged: true,
    failed: { count: 0, more: false, byCode: {} },
  });
  const long = (await campaign(sub, { status: 'draft', openingMessage: `${'x'.repeat(170)} {{first_name}}` })).campaign;
  expect((await openings(sub, long.id)).body).toMatchObject({ price: 2 });
  const whatsapp = (await campaign(sub, { status: 'draft', channel: 'whatsapp' })).campaign;
  expect((await openings(sub, whatsapp.id)).body).toMatchObject({ price: 2 });

  // A campaign's form asks before it saves, for the opening as it is being written.
  const quote = (account: TestAccount, body: unknown) =>
    api(ctx.gw, account, 'POST', 'campaigns/opening-price', { body });
  expect((await quote(sub, { channel: 'sms', openingMessage: 'Hi {{first_name|there}}' })).body).toEqual({
    price: 1,
    balance: 4,
    charged: true,
  });
  expect((await quote(sub, { channel: 'sms', openingMessage: 'y'.repeat(200) })).body).toMatchObject({ price: 2 });
  expect((await quote(sub, { channel: 'whatsapp' })).body).toMatchObject({ price: 2 });
  expect((await quote(sub, { channel: 'custom', openingMessage: 'Hi' })).body).toMatchObject({
    price: 0,
    charged: true,
  });
  expectApiError(await quote(sub, { channel: 'fax' }), 400, 'VALIDATION_ERROR');

  const standalone = await createAccount(ctx.gw);
  expect((await quote(standalone, { channel: 'sms', openingMessage: 'Hi' })).body).toEqual({
    price: 0,
    balance: 0,
    charged: false,
  });
  const free = (await campaign(standalone, { status: 'draft' })).campaign;
  expect((await openings(standalone, free.id)).body).toMatchObject({ price: 0, balance: 0, charged: false });
  expectApiError(await openings(standalone, sms.id), 404, 'CAMPAIGN_NOT_FOUND');
});

test('openings that failed for want of credits are counted on their campaign; a retry without credits leaves them; after a grant one retry sends them all', async () => {
  const { agency, sub } = await subAccount(0);
  const { list, campaign: live } = await campaign(sub);
  await addLeads(sub, list.id, 3);
  expect((await openings(sub, live.id)).body).toMatchObject({
    balance: 0,
    failed: { count: 3, more: false, byCode: { INSUFFICIENT_CREDITS: 3 } },
  });

  const refused = await api(ctx.gw, sub, 'POST', `campaigns/${live.id}/openings/retry-failed`);
  expect(refused.status).toBe(200);
  expect(refused.body).toMatchObject({ retried: [], more: false });
  expect(refused.body.refused.map((r: any) => r.code)).toEqual([
    'INSUFFICIENT_CREDITS',
    'INSUFFICIENT_CREDITS',
    'INSUFFICIENT_CREDITS',
  ]);
  expect((await openings(sub, live.id)).body.failed.count).toBe(3);

  await grant(agency, sub, 2);
  // Two can be paid for: those go, the third stays failed and is counted.
  const partly = (await api(ctx.gw, sub, 'POST', `campaigns/${live.id}/openings/retry-failed`)).body;
  expect(partly.retried).toHaveLength(2);
  expect(partly.refused).toEqual([expect.objectContaining({ code: 'INSUFFICIENT_CREDITS' })]);
  await untilIdle(ctx.gw);
  for (const id of partly.retried)
    expect((await api(ctx.gw, sub, 'GET', `messages/${id}`)).body).toMatchObject({
      status: 'sent',
      author: 'campaign',
    });
  expect((await openings(sub, live.id)).body).toMatchObject({
    balance: 0,
    failed: { count: 1, byCode: { INSUFFICIENT_CREDITS: 1 } },
  });

  await grant(agency, sub, 1);
  expect((await api(ctx.gw, sub, 'POST', `campaigns/${live.id}/openings/retry-failed`)).body).toMatchObject({
    retried: [partly.refused[0].messageId],
    refused: [],
  });
  await untilIdle(ctx.gw);
  expect((await openings(sub, live.id)).body).toMatchObject({ balance: 0, failed: { count: 0, byCode: {} } });

  const stranger = await createAccount(ctx.gw);
  expectApiError(
    await api(ctx.gw, stranger, 'POST', `campaigns/${live.id}/openings/retry-failed`),
    404,
    'CAMPAIGN_NOT_FOUND',
  );
});

test("the console's stream tells credits.updated on a grant, a new threshold and a spend while the balance is under it; another account hears none of it", async () => {
  const agency = await createAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  const sub = await consoleAccount(ctx.gw, { parentEmail: agency.email });
  const stranger = await consoleAccount(ctx.gw);
  const session = await signIn(ctx.gw, sub.email, sub.password);
  const other = await signIn(ctx.gw, stranger.email, stranger.password);
  const stream = await openStream(ctx.gw, '/console/api/stream', { cookie: session.cookie });
  const strangers = await openStream(ctx.gw, '/console/api/stream', { cookie: other.cookie });
  try {
    const credited = () => stream.events.filter((e) => e.event === 'credits.updated');
    await grant(agency, sub, 3);
    await stream.until(() => credited().length === 1);
    expect(credited()[0]!.data).toEqual({});

    await api(ctx.gw, sub, 'PUT', 'credits/low-balance', { body: { threshold: 1.5 } });
    await stream.until(() => credited().length === 2);

    // 3 → 2, above the threshold: nothing to tell. The next change told is the new threshold.
    const { list } = await campaign(sub);
    await addLeads(sub, list.id, 1);
    await api(ctx.gw, sub, 'PUT', 'credits/low-balance', { body: { threshold: 2.5 } });
    await stream.until(() => credited().length >= 3);

    // 2 → 1, under it: each spend is told, so the warning's balance stays true. Events come in commit order: once the
    // second opening is told sent, every earlier change was told, the first spend's too had it been.
    await addLeads(sub, list.id, 1);
    const sent = () => stream.events.filter((e) => e.event === 'message.updated' && e.data.status === 'sent');
    await stream.until(() => sent().length === 2);
    expect(credited()).toHaveLength(4);

    // The stranger's own change comes after the others': had it heard theirs, they would be before it.
    await api(ctx.gw, stranger, 'PUT', 'credits/low-balance', { body: { threshold: 1 } });
    const heard = await strangers.until((events) => events.some((e) => e.event === 'credits.updated'));
    expect(heard.filter((e) => e.event === 'credits.updated')).toHaveLength(1);
  } finally {
    stream.close();
    strangers.close();
  }
});

test("an agency's console hears credits.updated when a sub-account's credits change: a grant by API key, a spend under the threshold", async () => {
  const agency = await consoleAccount(ctx.gw, { type: 'agency', email: `${unique('agency')}@example.com` });
  const sub = await createAccount(ctx.gw, { parentEmail: agency.email, email: `${unique('sub')}@example.com` });
  const session = await signIn(ctx.gw, agency.email, agency.password);
  const stream = await openStream(ctx.gw, '/console/api/stream', { cookie: session.cookie });
  try {
    const credited = () => stream.events.filter((e) => e.event === 'credits.updated');
    // As an n8n workflow answering an auto-recharge request grants, with the agency's key.
    await grant(agency, sub, 1);
    await stream.until(() => credited().length === 1);

    // 1 → 0: no longer pays for another message, which the sub-account's warning shows and the agency's page too.
    const { list } = await campaign(sub);
    await addLeads(sub, list.id, 1);
    await stream.until(() => credited().length === 2);
  } finally {
    stream.close();
  }
});
