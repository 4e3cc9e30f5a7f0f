import { createAccount, request, startGateway, type TestAccount, type TestGateway } from '../helpers/gateway';
import type { INode, INodeExecutionData } from 'n8n-workflow';
import { byId, createHost, runLeadChat, type Host } from './helpers/n8n';
import { storeOutage, type StoreOutage } from './helpers/storeOutage';

/**
 * While the gateway's store is away for a moment (its database restarting for an upgrade), the gateway refuses with
 * 503 and a short Retry-After. The node waits and sends again, as on a 429, where sending again cannot make a change
 * twice; a workflow running through the restart loses no item.
 */
/**
 * The outage asks for 1 s (Retry-After); the node waits at most 50 ms of it here, so that the file runs in moments. That
 * it waits as asked is the 429 tests' (errors.test.ts): one wait, whatever refused.
 */
const runQuick = (host: Host, parameters: INode['parameters'], input?: INodeExecutionData[]) =>
  runLeadChat(host, { ...parameters, options: { maxWaitSeconds: 0.05, ...(parameters.options as object) } }, input);

describe('LeadChat node: a refusal for want of the store', () => {
  let gw: TestGateway;
  let outage: StoreOutage;
  let account: TestAccount;
  let host: Host;
  beforeAll(async () => {
    gw = await startGateway();
    outage = await storeOutage(gw);
    account = await createAccount(gw);
    host = await createHost({ leadChatApi: { baseUrl: outage.apiBase, apiKey: account.apiKey } });
  });
  afterAll(async () => {
    await outage.close();
    await gw.stop();
  });
  beforeEach(() => outage.heal());

  test('a read is waited out and read again', async () => {
    await request(gw, 'POST', '/v1/contacts', { apiKey: account.apiKey, body: { email: 'read@example.com' } });
    outage.refuse('GET', '/contacts', 'STORE_UNAVAILABLE', 2);
    const run = await runQuick(host, {
      resource: 'contact',
      operation: 'get',
      searchBy: 'email',
      email: 'read@example.com',
    });
    expect(run.error).toBeUndefined();
    expect(run.output('LeadChat').map((item) => item.json.email)).toEqual(['read@example.com']);
    expect(outage.seen).toEqual(['GET /v1/contacts', 'GET /v1/contacts', 'GET /v1/contacts']);
  });

  test('a change the store did not save is sent again, and every item of the run is made once', async () => {
    outage.refuse('POST', '/contacts', 'STORE_UNAVAILABLE');
    const emails = ['restart-1@example.com', 'restart-2@example.com', 'restart-3@example.com'];
    const run = await runQuick(
      host,
      { resource: 'contact', operation: 'create', phone: '', email: '={{ $json.email }}' },
      emails.map((email) => ({ json: { email } })),
    );
    expect(run.error).toBeUndefined();
    expect(run.output('LeadChat').map((item) => [item.json.email, item.json.created, item.pairedItem])).toEqual([
      ['restart-1@example.com', true, { item: 0 }],
      ['restart-2@example.com', true, { item: 1 }],
      ['restart-3@example.com', true, { item: 2 }],
    ]);
    expect(outage.seen.filter((line) => line === 'POST /v1/contacts')).toHaveLength(4);
    for (const email of emails) {
      const found = await request(gw, 'GET', '/v1/contacts', { apiKey: account.apiKey, query: { q: email } });
      expect(found.body.data).toHaveLength(1);
    }
  });

  test('a grant that may have been saved is sent again with its Idempotency Key, and grants once', async () => {
    const agency = await createAccount(gw, { type: 'agency' });
    const sub = await createAccount(gw, { parentEmail: agency.email });
    const agencyHost = await createHost({ leadChatApi: { baseUrl: outage.apiBase, apiKey: agency.apiKey } });
    outage.refuse('POST', '/subaccounts/credits', 'COMMIT_OUTCOME_UNKNOWN');
    const run = await runQuick(agencyHost, {
      resource: 'credit',
      operation: 'grant',
      email: sub.email,
      amount: 500,
      idempotencyKey: 'top-up-2024-05-01',
    });
    expect(run.error).toBeUndefined();
    expect(run.output('LeadChat')[0]!.json).toEqual({
      success: true,
      sub_account_id: sub.id,
      credits_added: 500,
      new_balance: 500,
    });
    expect(outage.seen).toEqual(['POST /v1/subaccounts/credits', 'POST /v1/subaccounts/credits']);
    expect((await request(gw, 'GET', '/v1/credits', { apiKey: sub.apiKey })).body.balance).toBe(500);
  });

  test('adding a contact to a list that may have been saved is sent again: the contact is on the list once', async () => {
    const list = await request(gw, 'POST', '/v1/lists', { apiKey: account.apiKey, body: { name: 'Restart' } });
    const contact = await request(gw, 'POST', '/v1/contacts', {
      apiKey: account.apiKey,
      body: { email: 'joins@example.com' },
    });
    outage.refuse('POST', `/lists/${list.body.id}/contacts`, 'COMMIT_OUTCOME_UNKNOWN');
    const run = await runQuick(host, {
      resource: 'list',
      operation: 'addContact',
      list: byId(list.body.id),
      contactId: contact.body.id,
    });
    expect(run.error).toBeUndefined();
    expect(run.output('LeadChat')[0]!.json).toMatchObject({ listId: list.body.id, contactId: contact.body.id });
    expect(outage.seen).toHaveLength(2);
    const members = await request(gw, 'GET', `/v1/lists/${list.body.id}/contacts`, { apiKey: account.apiKey });
    expect(members.body.data.map((member: { id: string }) => member.id)).toEqual([contact.body.id]);
  });

  test('a change without an Idempotency Key that may have been saved fails at once, saying to check before running again', async () => {
    outage.refuse('POST', '/lists', 'COMMIT_OUTCOME_UNKNOWN');
    const run = await runQuick(host, { resource: 'list', operation: 'create', name: 'Made once' });
    expect(run.error?.httpCode).toBe('503');
    expect(run.error?.description).toMatch(
      /^HTTP 503 COMMIT_OUTCOME_UNKNOWN from POST \/lists\. .*may or may not have been made\. Check before running the item again/,
    );
    expect(run.error?.description).not.toMatch(/Gave up/);
    expect(outage.seen).toEqual(['POST /v1/lists']);
    const lists = await request(gw, 'GET', '/v1/lists', { apiKey: account.apiKey, query: { q: 'Made once' } });
    expect(lists.body.data).toHaveLength(1);
  });

  test('an outage longer than the retries allow fails the item, saying it gave up and that nothing was changed', async () => {
    outage.refuse('POST', '/contacts', 'STORE_UNAVAILABLE', 5);
    const run = await runQuick(host, {
      resource: 'contact',
      operation: 'create',
      phone: '',
      email: 'long-outage@example.com',
      options: { maxRetries: 1 },
    });
    expect(run.error?.message).toBe('LeadChat: The store is unavailable: the change was not saved; retry later');
    expect(run.error?.description).toMatch(
      /^HTTP 503 STORE_UNAVAILABLE from POST \/contacts\. Gave up after 1 retry\. .*nothing was changed/,
    );
    expect(outage.seen).toEqual(['POST /v1/contacts', 'POST /v1/contacts']);
  });

  test('a damaged store is not waited for: its operator must restore a backup', async () => {
    outage.refuse('GET', '/lists', 'STORE_DAMAGED');
    const run = await runQuick(host, { resource: 'list', operation: 'getAll', returnAll: true });
    expect(run.error?.description).toMatch(/^HTTP 503 STORE_DAMAGED from GET \/lists\. .*restore it from a backup/);
    expect(outage.seen).toEqual(['GET /v1/lists']);
  });
});
