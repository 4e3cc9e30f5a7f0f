import { readdirSync } from 'node:fs';
import path from 'node:path';
import { withSession } from '../console/support';
import { tempDir } from '../helpers/gateway';
import { fileGateways } from '../helpers/in-process';
import { everything, found } from '../helpers/traces';
import { openStoreOf, type Store } from '../helpers/stopped-store';
import { live, naming, type Life } from './account-life';
import { whatsapp } from '../helpers/provider-accounts';
import {
  advanceClock,
  api,
  createAccount,
  expectApiError,
  poll,
  request,
  uniquePhone,
  untilIdle,
  type TestGateway,
} from './api-support';
import { gatewayModule } from '../helpers/gateway-modules';

/**
 * DELETE /admin/v1/accounts/{id}: the operator deletes an account and everything of it. The account is unknown at
 * once (its key, its sessions, its channels' webhooks); its data goes in the background, a batch per transaction,
 * and resumes after a stop; after it and a clean stop, nothing readable of it is left in any file of the data dir or
 * any table of the database, and another account's data is untouched.
 */
const { gateway, closing: receivers } = fileGateways({ LEADCHAT_JOB_POLL: '100ms' });

const admin = (gw: TestGateway, method: string, pathname: string) =>
  request(gw, method, pathname, { headers: { authorization: `Bearer ${gw.adminToken}` } });

const dist = path.resolve(__dirname, '../../gateway/dist');

/** An account with something of everything (account-life.ts), its failing receiver closed at the end. */
async function living(gw: TestGateway, tag: string): Promise<Life> {
  const life = await live(gw, tag);
  receivers.push(life.failing);
  return life;
}

const untilDeleted = (gw: TestGateway, accountId: string) =>
  poll(
    async () => (await admin(gw, 'GET', `/admin/v1/accounts/${accountId}/deletion`)).body,
    (d) => d?.status === 'done',
    30_000,
  );

test('every collection of the store is deleted with its account, or says why it holds nothing of one', async () => {
  const { collections } = (await gatewayModule(path.join(dist, 'domain/collections.js'))) as {
    collections: Array<{ name: string }>;
  };
  const { OWNERS } = (await gatewayModule(path.join(dist, 'domain/account-deletion.js'))) as {
    OWNERS: Array<[string, { by: string; why?: string }]>;
  };
  expect([...new Set(OWNERS.map(([name]) => name))].sort()).toEqual(collections.map((c) => c.name).sort());
  for (const [, owner] of OWNERS) if (owner.by === 'none') expect(owner.why).toEqual(expect.any(String));
});

test("deleting an account removes everything of it at once for its users and in the background from the store; another account's data stays", async () => {
  const dataDir = tempDir();
  let gw = await gateway(dataDir);
  const gone = await living(gw, 'GONE41');
  const stays = await living(gw, 'STAY52');

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
  const gone = await living(gw, 'HALT63');
  // Enough of one collection for several batches.
  for (let i = 0; i < 450; i++)
    await api(gw, gone.account, 'POST', 'contacts', { body: { firstName: `Many${i}`, phone: uniquePhone() } });
  expect(await gw.stop()).toBe(0);

  // The deletion as the admin API starts it, and a few of its batches, then the stop.
  const { deleteAccount, deleteBatch } = (await gatewayModule(path.join(dist, 'domain/account-deletion.js'))) as {
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
