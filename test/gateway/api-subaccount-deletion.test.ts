import path from 'node:path';
import { consoleAccount, teamMember, withSession } from '../console/support';
import { tempDir } from '../helpers/gateway';
import { fileGateways } from '../helpers/in-process';
import { everything, found } from '../helpers/traces';
import { openStoreOf, type Store } from '../helpers/stopped-store';
import type { Doc } from '../../gateway/src/store/store.js' with { 'resolution-mode': 'import' };
import { live, naming, type Life } from './account-life';
import {
  api,
  createAccount,
  expectApiError,
  poll,
  request,
  uniquePhone,
  type TestAccount,
  type TestGateway,
} from './api-support';
import { gatewayModule } from '../helpers/gateway-modules';

/**
 * DELETE /v1/subaccounts/{id}: an agency deletes one of its sub-accounts as the operator deletes an account, gone at
 * once and its data removed in the background. Its unspent balance comes back to the agency once, however often the
 * deletion is asked and wherever the gateway stopped; another agency, the sub-account itself and agents are refused
 * and nothing happens.
 */
const { gateway, closing: receivers } = fileGateways({ LEADCHAT_JOB_POLL: '100ms' });

const dist = path.resolve(__dirname, '../../gateway/dist');

/** A sub-account of `agency` granted `amount`, with something of everything (account-life.ts). */
async function client(gw: TestGateway, agency: TestAccount, tag: string, amount: number): Promise<Life> {
  const sub = await consoleAccount(gw, { parentEmail: agency.email, name: `Clinic ${tag}` });
  expect((await api(gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount } })).status).toBe(
    200,
  );
  const life = await live(gw, tag, sub);
  receivers.push(life.failing);
  return life;
}

const untilDeleted = (gw: TestGateway, agency: TestAccount, subId: string) =>
  poll(
    async () => (await api(gw, agency, 'GET', `subaccounts/${subId}/deletion`)).body,
    (d) => d?.status === 'done',
    30_000,
  );

/** The lines of one kind of the agency's own credit history. */
const history = async (gw: TestGateway, agency: TestAccount, kind: string) =>
  (await api(gw, agency, 'GET', 'credits/history', { query: { kind } })).body.data;

const balanceOf = async (gw: TestGateway, agency: TestAccount, subId: string): Promise<number> =>
  (await api(gw, agency, 'GET', `subaccounts/${subId}/credits`, { query: { transactions: 'false' } })).body.balance;

/**
 * The agency's own records that name its deleted sub-account: its grants to it, the balance come back, and its audit
 * log's entry of the deletion.
 */
const agencyRecord = (agency: TestAccount) => (collection: string, doc: Record<string, unknown>) =>
  (collection === 'transactions' && (doc.grantedBy === agency.id || doc.accountId === agency.id)) ||
  (collection === 'audit_log' && doc.accountId === agency.id);

test("an agency deletes its sub-account: gone at once, its data removed, its unspent balance back once; the agency's grants to it stay", async () => {
  const gw = await gateway();
  const agency = await consoleAccount(gw, { type: 'agency' });
  const gone = await client(gw, agency, 'LEAVE81', 25);
  const stays = await client(gw, agency, 'KEEP92', 10);
  const unspent = await balanceOf(gw, agency, gone.account.id);
  expect(unspent).toBeGreaterThan(0);
  const before = found(await everything(gw), gone.traces);
  for (const what of Object.keys(gone.traces)) expect(before.some((hit) => hit.startsWith(`${what} in `))).toBe(true);
  const unknownKey = await request(gw, 'GET', '/v1/contacts', { apiKey: 'lc_unknown_key_0000000000000000' });

  const deleted = await api(gw, agency, 'DELETE', `subaccounts/${gone.account.id}`);
  expect(deleted.status).toBe(202);
  expect(deleted.body).toEqual({
    accountId: gone.account.id,
    status: 'deleting',
    startedAt: expect.any(String),
    finishedAt: null,
    removed: expect.objectContaining({ accounts: 1 }),
  });

  // At once: its key is an unknown key, its sessions are over, the agency no longer lists it.
  const byKey = await api(gw, gone.account, 'GET', 'contacts');
  expect({ status: byKey.status, body: byKey.body }).toEqual({ status: 401, body: unknownKey.body });
  expect((await withSession(gw, gone.member, 'GET', '/v1/conversations')).status).toBe(401);
  expect((await api(gw, agency, 'GET', 'subaccounts')).body.data.map((s: { id: string }) => s.id)).toEqual([
    stays.account.id,
  ]);
  expectApiError(await api(gw, agency, 'GET', `subaccounts/${gone.account.id}/credits`), 404, 'SUB_ACCOUNT_NOT_FOUND');
  // Asked again while it runs: the same deletion, nothing returned twice.
  const again = await api(gw, agency, 'DELETE', `subaccounts/${gone.account.id}`);
  expect([200, 202]).toContain(again.status);
  expect(again.body).toMatchObject({ accountId: gone.account.id, startedAt: deleted.body.startedAt });

  const done = await untilDeleted(gw, agency, gone.account.id);
  expect(done).toMatchObject({ accountId: gone.account.id, status: 'done', finishedAt: expect.any(String) });
  expect(done.removed).toMatchObject({ accounts: 1, contacts: 2, lists: 1, conversations: 1, notes: 1, members: 1 });
  // Once done, asked again: 200 with the deletion as it ended.
  expect(await api(gw, agency, 'DELETE', `subaccounts/${gone.account.id}`)).toMatchObject({ status: 200, body: done });
  // The agency's audit log says who deleted which sub-account, once however often it was asked.
  const log = await api(gw, agency, 'GET', 'audit-log', { query: { action: 'subaccount.deleted' } });
  expect(log.body.data).toEqual([
    expect.objectContaining({
      actor: { type: 'api_key', id: null, name: 'API key' },
      target: { type: 'subaccount', id: gone.account.id, name: 'Clinic LEAVE81' },
    }),
  ]);

  // Its unspent balance came back to the agency once, as a line of the agency's history naming it by id.
  expect(await history(gw, agency, 'returned')).toEqual([
    {
      id: expect.any(String),
      kind: 'returned',
      amount: unspent,
      balance: null,
      description: 'Unspent balance of a deleted sub-account',
      messageId: null,
      messageKind: null,
      channel: null,
      subAccount: { id: gone.account.id, name: null },
      createdAt: expect.any(String),
    },
  ]);
  // The agency's grants to it stay, naming it by id; the other sub-account's are as they were.
  expect(
    (await history(gw, agency, 'granted')).map((l: { amount: number; subAccount: unknown }) => [
      l.amount,
      l.subAccount,
    ]),
  ).toEqual([
    [-10, { id: stays.account.id, name: 'Clinic KEEP92' }],
    [-25, { id: gone.account.id, name: null }],
  ]);
  expect((await api(gw, agency, 'GET', 'credits')).body.transactions.map((l: { kind: string }) => l.kind)).toEqual([
    'returned',
    'granted',
    'granted',
  ]);

  // The other sub-account has all of its own.
  expect((await api(gw, stays.account, 'GET', `contacts/${stays.contactId}`)).status).toBe(200);
  expect((await withSession(gw, stays.member, 'GET', '/v1/conversations')).status).toBe(200);

  // After a clean stop: nothing of it in any file or table; only the agency's own records name it.
  expect(await gw.stop()).toBe(0);
  expect(found(await everything(gw), gone.traces)).toEqual([]);
  expect(found(await everything(gw), stays.traces).length).toBeGreaterThan(0);
  expect(await naming(gw, gone.account.id, agencyRecord(agency))).toEqual([]);
}, 120_000);

test("another agency's sub-account or any account not the agency's own is 404 as a missing one, the sub-account's own key 403, an agent 403: nothing is deleted", async () => {
  const gw = await gateway();
  const agency = await consoleAccount(gw, { type: 'agency' });
  const sub = await consoleAccount(gw, { parentEmail: agency.email, name: 'Stays Clinic' });
  await api(gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 5 } });
  const contact = await api(gw, sub, 'POST', 'contacts', { body: { phone: uniquePhone(), firstName: 'Kept' } });
  const stranger = await createAccount(gw, { type: 'agency' });
  const standalone = await createAccount(gw);
  const agent = await teamMember(gw, agency, 'agent');
  const admin = await teamMember(gw, agency, 'admin');

  const missing = await api(gw, stranger, 'DELETE', 'subaccounts/acc_missing');
  expectApiError(missing, 404, 'SUB_ACCOUNT_NOT_FOUND');
  const foreign = await api(gw, stranger, 'DELETE', `subaccounts/${sub.id}`);
  expect({ status: foreign.status, body: foreign.body }).toEqual({ status: 404, body: missing.body });
  const foreignProgress = await api(gw, stranger, 'GET', `subaccounts/${sub.id}/deletion`);
  expect({ status: foreignProgress.status, body: foreignProgress.body }).toEqual({
    status: 404,
    body: (await api(gw, stranger, 'GET', 'subaccounts/acc_missing/deletion')).body,
  });
  expectApiError(foreignProgress, 404, 'SUB_ACCOUNT_NOT_FOUND');
  for (const other of [standalone.id, agency.id, stranger.id])
    expect((await api(gw, agency, 'DELETE', `subaccounts/${other}`)).body).toEqual(
      (await api(gw, agency, 'DELETE', 'subaccounts/acc_missing')).body,
    );
  // One of its own, not deleted: there is no deletion to follow.
  expectApiError(await api(gw, agency, 'GET', `subaccounts/${sub.id}/deletion`), 404, 'SUB_ACCOUNT_DELETION_NOT_FOUND');
  // The sub-account is no agency: its own key deletes nothing, itself included.
  expectApiError(await api(gw, sub, 'DELETE', `subaccounts/${sub.id}`), 403, 'NOT_AGENCY');
  expectApiError(
    await withSession(gw, agent, 'DELETE', `/v1/subaccounts/${sub.id}`, { headers: { origin: gw.url } }),
    403,
    'FORBIDDEN',
  );

  // Nothing was deleted: every account answers as before, and no balance came back.
  expect((await api(gw, sub, 'GET', `contacts/${contact.body.id}`)).status).toBe(200);
  expect((await api(gw, sub, 'GET', 'credits')).body.balance).toBe(5);
  for (const account of [standalone, stranger, agency])
    expect((await api(gw, account, 'GET', 'credits')).status).toBe(200);
  expect((await api(gw, agency, 'GET', 'subaccounts')).body.data.map((s: { id: string }) => s.id)).toEqual([sub.id]);
  expect(await history(gw, agency, 'returned')).toEqual([]);

  // An admin of the agency deletes it; another agency still cannot follow its deletion.
  expect(
    (await withSession(gw, admin, 'DELETE', `/v1/subaccounts/${sub.id}`, { headers: { origin: gw.url } })).status,
  ).toBe(202);
  await untilDeleted(gw, agency, sub.id);
  expectApiError(await api(gw, stranger, 'GET', `subaccounts/${sub.id}/deletion`), 404, 'SUB_ACCOUNT_NOT_FOUND');
  expectApiError(await api(gw, stranger, 'DELETE', `subaccounts/${sub.id}`), 404, 'SUB_ACCOUNT_NOT_FOUND');
  expect(await history(gw, agency, 'returned')).toEqual([
    expect.objectContaining({ amount: 5, subAccount: { id: sub.id, name: null } }),
  ]);
}, 60_000);

test("the operator's deletion of a sub-account returns its balance to the agency too, and the agency follows it", async () => {
  const gw = await gateway();
  const agency = await createAccount(gw, { type: 'agency' });
  const sub = await createAccount(gw, { parentEmail: agency.email });
  await api(gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 7.25 } });
  const admin = { headers: { authorization: `Bearer ${gw.adminToken}` } };
  expect((await request(gw, 'DELETE', `/admin/v1/accounts/${sub.id}`, admin)).status).toBe(202);
  expect(await untilDeleted(gw, agency, sub.id)).toMatchObject({ accountId: sub.id, status: 'done' });
  expect(await history(gw, agency, 'returned')).toEqual([
    expect.objectContaining({ kind: 'returned', amount: 7.25, subAccount: { id: sub.id, name: null } }),
  ]);
  expect((await api(gw, agency, 'DELETE', `subaccounts/${sub.id}`)).status).toBe(200);
  expect(await history(gw, agency, 'returned')).toHaveLength(1);
});

test('a gateway stopped midway through a sub-account deletion finishes it, and the balance came back once', async () => {
  const dataDir = tempDir();
  let gw = await gateway(dataDir);
  const agency = await consoleAccount(gw, { type: 'agency' });
  const gone = await client(gw, agency, 'HALT73', 40);
  for (let i = 0; i < 250; i++)
    await api(gw, gone.account, 'POST', 'contacts', { body: { firstName: `Many${i}`, phone: uniquePhone() } });
  const unspent = await balanceOf(gw, agency, gone.account.id);
  expect(await gw.stop()).toBe(0);

  // The deletion as the route starts it, asked twice, and a few of its batches, then the stop.
  const { deleteAccount, deleteBatch } = (await gatewayModule(path.join(dist, 'domain/account-deletion.js'))) as {
    deleteAccount: (store: Store, id: string, agencyId?: string) => Promise<{ status: string }>;
    deleteBatch: (store: Store, id: string) => Promise<boolean>;
  };
  const store = await openStoreOf(gw.env);
  try {
    expect((await deleteAccount(store, gone.account.id, agency.id)).status).toBe('deleting');
    for (let n = 0; n < 5; n++) expect(await deleteBatch(store, gone.account.id)).toBe(true);
    expect((await deleteAccount(store, gone.account.id, agency.id)).status).toBe('deleting');
  } finally {
    await store.close();
  }

  gw = await gateway(dataDir);
  expect((await api(gw, gone.account, 'GET', 'contacts')).status).toBe(401);
  expect((await api(gw, agency, 'GET', 'subaccounts')).body.data).toEqual([]);
  expect((await api(gw, agency, 'DELETE', `subaccounts/${gone.account.id}`)).status).toBe(202);
  const done = await untilDeleted(gw, agency, gone.account.id);
  expect(done.removed.contacts).toBe(252);
  expect(await history(gw, agency, 'returned')).toEqual([
    expect.objectContaining({ amount: unspent, subAccount: { id: gone.account.id, name: null } }),
  ]);
  expect(await gw.stop()).toBe(0);
  expect(found(await everything(gw), gone.traces)).toEqual([]);
  expect(await naming(gw, gone.account.id, agencyRecord(agency))).toEqual([]);
}, 180_000);

test('a sub-account that is itself an agency with sub-accounts is refused, ACCOUNT_HAS_SUBACCOUNTS, and keeps its balance', async () => {
  const dataDir = tempDir();
  let gw = await gateway(dataDir);
  const agency = await createAccount(gw, { type: 'agency' });
  const sub = await createAccount(gw, { parentEmail: agency.email, name: 'Reseller' });
  const below = await createAccount(gw);
  await api(gw, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 3 } });
  expect(await gw.stop()).toBe(0);
  // No request makes such an account (an agency has no parent): one of an older version's data, made here.
  const store = await openStoreOf(gw.env);
  try {
    await store.transact(async (tx) => {
      await tx.update<Doc & { type: string }>('accounts', sub.id, { type: 'agency' });
      await tx.update<Doc & { parentId: string }>('accounts', below.id, { parentId: sub.id });
    });
  } finally {
    await store.close();
  }

  gw = await gateway(dataDir);
  const refused = await api(gw, agency, 'DELETE', `subaccounts/${sub.id}`);
  expectApiError(refused, 409, 'ACCOUNT_HAS_SUBACCOUNTS');
  // Its own clients are none of the agency's business: the answer says what to do, and names none of them.
  expect(refused.body.error.message).toContain('Reseller is an agency with sub-accounts of its own');
  expect(JSON.stringify(refused.body)).not.toContain(below.email);
  expect(JSON.stringify(refused.body)).not.toContain(below.id);
  expect((await api(gw, sub, 'GET', 'credits')).body.balance).toBe(3);
  expect(await history(gw, agency, 'returned')).toEqual([]);
}, 60_000);
