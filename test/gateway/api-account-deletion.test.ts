import { readdirSync } from 'node:fs';
import path from 'node:path';
import { consoleAccount, teamMember, withSession } from '../console/support';
import { clockOf, removeDir, tempDir } from '../helpers/gateway';
import { startInProcess } from '../helpers/in-process';
import { everything, found, type Traces } from '../helpers/traces';
import { openStoreOf, type Store } from '../helpers/stopped-store';
import { whatsapp } from '../helpers/provider-accounts';
import {
  advanceClock,
  api,
  clinicCampaign,
  createAccount,
  dataUri,
  expectApiError,
  png,
  poll,
  Receiver,
  request,
  uniquePhone,
  untilIdle,
  type TestAccount,
  type TestGateway,
} from './api-support';

/**
 * DELETE /admin/v1/accounts/{id}: the operator deletes an account and everything of it. The account is unknown at
 * once (its key, its sessions, its channels' webhooks); its data goes in the background, a batch per transaction,
 * and resumes after a stop; after it and a clean stop, nothing readable of it is left in any file of the data dir or
 * any table of the database, and another account's data is untouched.
 */
const ENV = { LEADCHAT_JOB_POLL: '100ms' };
const gateways: TestGateway[] = [];
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  for (const gw of gateways) {
    await gw.stop();
    removeDir(gw.dataDir);
  }
});

async function gateway(dataDir = tempDir()): Promise<TestGateway> {
  const gw = await startInProcess(ENV, dataDir);
  gateways.push(gw);
  return gw;
}

const admin = (gw: TestGateway, method: string, pathname: string) =>
  request(gw, method, pathname, { headers: { authorization: `Bearer ${gw.adminToken}` } });

const dist = path.resolve(__dirname, '../../gateway/dist');

interface Life {
  account: TestAccount;
  contactId: string;
  member: Awaited<ReturnType<typeof teamMember>>;
  /** The receiver of its webhook subscription, which fails every delivery: one waits to be tried again. */
  failing: Receiver;
  /** What of the account must be found before its deletion and never after. */
  traces: Traces;
}

/**
 * An account with something of everything: a contact on a list, a campaign, a conversation with messages and a kept
 * file, snoozed for a day (its wake-up waits in the job queue), a note, a saved reply, a webhook subscription whose receiver fails (its delivery waits to be tried again), and
 * a member signed in to the console. `tag` makes its words its own.
 */
async function live(gw: TestGateway, tag: string): Promise<Life> {
  const account = await consoleAccount(gw);
  const failing = await Receiver.start(() => ({ status: 500 }));
  receivers.push(failing);
  expect(
    (await api(gw, account, 'POST', 'webhooks', { body: { url: failing.url, events: ['message_received'] } })).status,
  ).toBe(201);
  expect((await api(gw, account, 'PUT', 'channels/whatsapp', { body: whatsapp })).status).toBe(200);
  const contact = (
    await api(gw, account, 'POST', 'contacts', {
      body: { firstName: `Wilhelmina${tag}`, phone: uniquePhone(), customFields: { ward: `ward-${tag}-7` } },
    })
  ).body;
  const list = (await api(gw, account, 'POST', 'lists', { body: { name: `Patients ${tag}` } })).body;
  expect(
    (await api(gw, account, 'POST', `lists/${list.id}/contacts`, { body: { contactId: contact.id } })).status,
  ).toBe(201);
  await clinicCampaign(gw, account);
  const file = png(12 + tag.length, 12);
  const chat = await api(gw, account, 'POST', 'incoming_custom_channel_message', {
    body: {
      customData: {
        messageSid: `sid-${tag}-${Date.now()}`,
        fromId: `visitor-${tag}`,
        toId: 'clinic',
        body: `my scan BRAMBLE-${tag}`,
        mediaUrl: dataUri('image/png', file),
        mediaContentType: 'image/png',
        channel: 'web-chat',
      },
    },
  });
  expect(chat.status).toBe(200);
  const { conversationId, contactId } = (await api(gw, account, 'GET', `messages/${chat.body.messageId}`)).body;
  expect(
    (
      await api(gw, account, 'POST', `contacts/${contactId}/messages`, {
        body: { body: `see you at THISTLE-${tag}` },
        headers: { 'Idempotency-Key': `reply-${tag}` },
      })
    ).status,
  ).toBe(201);
  // Nothing takes the chat's replies: the contact still waits, until the bot has the conversation again.
  expect((await api(gw, account, 'POST', `contacts/${contactId}/bot`, { body: { active: true } })).status).toBe(200);
  const until = new Date(clockOf(gw) + 24 * 60 * 60_000).toISOString();
  expect((await api(gw, account, 'POST', `conversations/${conversationId}/snooze`, { body: { until } })).status).toBe(
    200,
  );
  expect(
    (await api(gw, account, 'POST', `conversations/${conversationId}/notes`, { body: { text: `HEATHER-${tag}` } }))
      .status,
  ).toBe(201);
  expect(
    (await api(gw, account, 'POST', 'saved-replies', { body: { name: `Hours ${tag}`, text: `JUNIPER-${tag}` } }))
      .status,
  ).toBe(201);
  const member = await teamMember(gw, account, 'agent');
  expect((await withSession(gw, member, 'GET', '/v1/conversations')).status).toBe(200);
  await failing.waitFor(1);
  return {
    account,
    contactId,
    member,
    failing,
    traces: {
      'contact name': `Wilhelmina${tag}`,
      'custom field': `ward-${tag}-7`,
      'list name': `Patients ${tag}`,
      'chat text': `BRAMBLE-${tag}`,
      'team reply': `THISTLE-${tag}`,
      'team note': `HEATHER-${tag}`,
      'saved reply': `JUNIPER-${tag}`,
      'account email': account.email,
      file,
    },
  };
}

/** The documents of the stopped gateway's store that name `accountId`, but the record of its deletion. */
async function naming(gw: TestGateway, accountId: string): Promise<string[]> {
  const { collections } = (await import(path.join(dist, 'domain/collections.js'))) as {
    collections: Array<{ name: string }>;
  };
  const store = await openStoreOf(gw.env);
  try {
    const hits: string[] = [];
    for (const { name } of collections) {
      if (name === 'account_deletions') continue;
      for (const doc of await store.scan(name))
        if (JSON.stringify(doc).includes(accountId)) hits.push(`${name}/${doc.id}`);
    }
    for (const status of ['pending', 'running', 'dead'] as const)
      for (const job of await store.jobs.list(status)) if (job.accountId === accountId) hits.push(`job ${job.kind}`);
    return hits;
  } finally {
    await store.close();
  }
}

const untilDeleted = (gw: TestGateway, accountId: string) =>
  poll(
    async () => (await admin(gw, 'GET', `/admin/v1/accounts/${accountId}/deletion`)).body,
    (d) => d?.status === 'done',
    30_000,
  );

test('every collection of the store is deleted with its account, or says why it holds nothing of one', async () => {
  const { collections } = (await import(path.join(dist, 'domain/collections.js'))) as {
    collections: Array<{ name: string }>;
  };
  const { OWNERS } = (await import(path.join(dist, 'domain/account-deletion.js'))) as {
    OWNERS: Array<[string, { by: string; why?: string }]>;
  };
  expect([...new Set(OWNERS.map(([name]) => name))].sort()).toEqual(collections.map((c) => c.name).sort());
  for (const [, owner] of OWNERS) if (owner.by === 'none') expect(owner.why).toEqual(expect.any(String));
});

test("deleting an account removes everything of it at once for its users and in the background from the store; another account's data stays", async () => {
  const dataDir = tempDir();
  let gw = await gateway(dataDir);
  const gone = await live(gw, 'GONE41');
  const stays = await live(gw, 'STAY52');

  const before = found(await everything(gw), gone.traces);
  for (const what of Object.keys(gone.traces)) expect(before.some((hit) => hit.startsWith(`${what} in `))).toBe(true);

  const unknownKey = await request(gw, 'GET', '/v1/contacts', { apiKey: 'lc_unknown_key_0000000000000000' });
  const unknownHook = await request(gw, 'GET', '/v1/channels/whatsapp/acc_unknown/webhook', {
    query: { 'hub.mode': 'subscribe', 'hub.verify_token': whatsapp.verifyToken, 'hub.challenge': '1' },
  });
  const deleted = await admin(gw, 'DELETE', `/admin/v1/accounts/${gone.account.id}`);
  expect(deleted.status).toBe(202);
  expect(deleted.body).toMatchObject({ accountId: gone.account.id, status: 'deleting', finishedAt: null });

  // At once: its key is an unknown key, its sessions are over, its channels' webhooks are an unknown account's.
  const byKey = await api(gw, gone.account, 'GET', 'contacts');
  expect({ status: byKey.status, body: byKey.body }).toEqual({ status: 401, body: unknownKey.body });
  expect((await withSession(gw, gone.member, 'GET', '/v1/conversations')).status).toBe(401);
  const hook = await request(gw, 'GET', `/v1/channels/whatsapp/${gone.account.id}/webhook`, {
    query: { 'hub.mode': 'subscribe', 'hub.verify_token': whatsapp.verifyToken, 'hub.challenge': '1' },
  });
  expect({ status: hook.status, body: hook.body }).toEqual({ status: unknownHook.status, body: unknownHook.body });
  expect(
    (
      await api(gw, gone.account, 'POST', 'incoming_custom_channel_message', {
        body: { customData: { messageSid: 'sid-after', fromId: 'visitor-after', toId: 'clinic', body: 'hi' } },
      })
    ).status,
  ).toBe(401);
  expect((await admin(gw, 'GET', `/admin/v1/accounts?email=${encodeURIComponent(gone.account.email)}`)).body).toEqual({
    data: [],
  });

  const done = await untilDeleted(gw, gone.account.id);
  expect(done).toMatchObject({ accountId: gone.account.id, status: 'done', finishedAt: expect.any(String) });
  expect(done.removed).toMatchObject({
    accounts: 1,
    // The one made by the API and the one who wrote on the chat.
    contacts: 2,
    lists: 1,
    memberships: 1,
    campaigns: 1,
    conversations: 1,
    notes: 1,
    saved_replies: 1,
    webhooks: 1,
    members: 1,
    media: 1,
    files: 1,
  });
  expect(done.removed.messages).toBeGreaterThanOrEqual(2);
  expect(done.removed.deliveries).toBeGreaterThanOrEqual(1);
  expect(done.removed.sessions).toBeGreaterThanOrEqual(1);
  // The other account's sessions hold.
  expect((await withSession(gw, stays.member, 'GET', '/v1/conversations')).status).toBe(200);
  // Its delivery waiting to be tried again is never tried; the other account's is.
  const tried = { gone: gone.failing.requests.length, stays: stays.failing.requests.length };
  await advanceClock(gw, '2h');
  await untilIdle(gw);
  expect(gone.failing.requests.length).toBe(tried.gone);
  expect(stays.failing.requests.length).toBeGreaterThan(tried.stays);
  // Asked again: the same deletion, done. An id never known: 404.
  expect(await admin(gw, 'DELETE', `/admin/v1/accounts/${gone.account.id}`)).toMatchObject({ status: 200, body: done });
  expectApiError(await admin(gw, 'DELETE', '/admin/v1/accounts/acc_never'), 404, 'ACCOUNT_NOT_FOUND');
  expectApiError(await admin(gw, 'GET', '/admin/v1/accounts/acc_never/deletion'), 404);
  // Without the admin token: refused.
  expect((await request(gw, 'DELETE', `/admin/v1/accounts/${stays.account.id}`)).status).toBe(401);

  // The other account has all of its own.
  expect((await api(gw, stays.account, 'GET', `contacts/${stays.contactId}`)).status).toBe(200);
  expect(
    (await api(gw, stays.account, 'GET', 'contacts', { query: { q: 'WilhelminaSTAY52' } })).body.data.map(
      (c: { firstName?: string }) => c.firstName ?? null,
    ),
  ).toContain('WilhelminaSTAY52');
  expect((await api(gw, stays.account, 'GET', 'conversations')).body.data).toHaveLength(1);
  expect((await api(gw, stays.account, 'GET', 'lists')).body.data).toHaveLength(1);
  expect((await api(gw, stays.account, 'GET', 'webhooks')).body.data).toHaveLength(1);

  // After a clean stop: nothing of it in any file or table, and no document or job names it.
  expect(await gw.stop()).toBe(0);
  expect(found(await everything(gw), gone.traces)).toEqual([]);
  expect(found(await everything(gw), stays.traces).length).toBeGreaterThan(0);
  expect(await naming(gw, gone.account.id)).toEqual([]);
  // Not even an empty folder of its files.
  expect(
    (readdirSync(gw.dataDir, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) =>
      f.includes(gone.account.id),
    ),
  ).toEqual([]);

  gw = await gateway(dataDir);
  expect((await api(gw, stays.account, 'GET', `contacts/${stays.contactId}`)).status).toBe(200);
}, 120_000);

test('an agency with sub-accounts is refused, ACCOUNT_HAS_SUBACCOUNTS; its grants to a deleted sub-account stay in its history', async () => {
  const gw = await gateway();
  const agency = await createAccount(gw, { type: 'agency' });
  const sub = await createAccount(gw, { parentEmail: agency.email, name: 'Leaving Clinic' });
  expect((await api(gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 5 } })).status).toBe(
    200,
  );
  const refused = await admin(gw, 'DELETE', `/admin/v1/accounts/${agency.id}`);
  expectApiError(refused, 409, 'ACCOUNT_HAS_SUBACCOUNTS');
  expect(refused.body.error.message).toContain(sub.email);
  expect((await api(gw, agency, 'GET', 'credits')).status).toBe(200);

  expect((await admin(gw, 'DELETE', `/admin/v1/accounts/${sub.id}`)).status).toBe(202);
  await untilDeleted(gw, sub.id);
  expect((await api(gw, agency, 'GET', 'credits/history', { query: { kind: 'granted' } })).body.data).toEqual([
    expect.objectContaining({ kind: 'granted', amount: -5, subAccount: { id: sub.id, name: null } }),
  ]);
  expect((await api(gw, agency, 'GET', 'subaccounts')).body.data).toEqual([]);
  // Its email is free again: a new account of it is another account.
  const again = await createAccount(gw, { email: sub.email });
  expect(again.id).not.toBe(sub.id);
  expect((await admin(gw, 'DELETE', `/admin/v1/accounts/${agency.id}`)).status).toBe(202);
  await untilDeleted(gw, agency.id);
  expect((await api(gw, agency, 'GET', 'credits')).status).toBe(401);
}, 60_000);

test('a gateway stopped midway through a deletion refuses the account from its start and finishes removing it', async () => {
  const dataDir = tempDir();
  let gw = await gateway(dataDir);
  const gone = await live(gw, 'HALT63');
  // Enough of one collection for several batches.
  for (let i = 0; i < 450; i++)
    await api(gw, gone.account, 'POST', 'contacts', { body: { firstName: `Many${i}`, phone: uniquePhone() } });
  expect(await gw.stop()).toBe(0);

  // The deletion as the admin API starts it, and a few of its batches, then the stop.
  const { deleteAccount, deleteBatch } = (await import(path.join(dist, 'domain/account-deletion.js'))) as {
    deleteAccount: (store: Store, id: string) => Promise<{ status: string }>;
    deleteBatch: (store: Store, id: string) => Promise<boolean>;
  };
  const store = await openStoreOf(gw.env);
  try {
    expect((await deleteAccount(store, gone.account.id)).status).toBe('deleting');
    for (let n = 0; n < 8; n++) expect(await deleteBatch(store, gone.account.id)).toBe(true);
  } finally {
    await store.close();
  }

  gw = await gateway(dataDir);
  expect((await api(gw, gone.account, 'GET', 'contacts')).status).toBe(401);
  expect((await withSession(gw, gone.member, 'GET', '/v1/conversations')).status).toBe(401);
  const done = await untilDeleted(gw, gone.account.id);
  expect(done.removed.contacts).toBe(452);
  expect(await gw.stop()).toBe(0);
  expect(found(await everything(gw), gone.traces)).toEqual([]);
  expect(await naming(gw, gone.account.id)).toEqual([]);
}, 180_000);
