import { createAccount, request, startGateway, type TestAccount, type TestGateway } from '../helpers/gateway';
import { createHost, runLeadChat, type Host } from './helpers/n8n';

/**
 * An agency's morning top-up: read each sub-account's balance, and grant 500 credits to those under 100. Sub-Account
 * › Get Many reads them; Credit › Get Balance is what a sub-account's own workflow reads of itself.
 */
describe('LeadChat node: an agency reads balances', () => {
  let gw: TestGateway;
  let agency: TestAccount;
  let subs: TestAccount[];
  let agencyHost: Host;

  const grant = (sub: TestAccount, amount: number) =>
    request(gw, 'POST', '/v1/subaccounts/credits', { apiKey: agency.apiKey, body: { email: sub.email, amount } });

  beforeAll(async () => {
    gw = await startGateway();
    agency = await createAccount(gw, { type: 'agency' });
    subs = [];
    for (const name of ['Smile Dental', 'Oak Realty', 'Hill Gym']) {
      subs.push(await createAccount(gw, { parentEmail: agency.email, name }));
    }
    await grant(subs[0]!, 40);
    await grant(subs[1]!, 250);
    agencyHost = await createHost({
      leadChatApi: { baseUrl: gw.apiBase, apiKey: agency.apiKey, ignoreSslIssues: true },
    });
  });
  afterAll(async () => {
    await gw.stop();
  });

  test('Sub-Account › Get Many outputs one item per sub-account, oldest first, with its balance', async () => {
    const run = await runLeadChat(agencyHost, { resource: 'subAccount', operation: 'getAll', returnAll: true });
    expect(run.error).toBeUndefined();
    const items = run.output('LeadChat');
    expect(items.map((item) => [item.json.name, item.json.email, item.json.balance, item.pairedItem])).toEqual([
      ['Smile Dental', subs[0]!.email, 40, { item: 0 }],
      ['Oak Realty', subs[1]!.email, 250, { item: 0 }],
      ['Hill Gym', subs[2]!.email, 0, { item: 0 }],
    ]);
    expect(items[0]!.json).toEqual({
      id: subs[0]!.id,
      name: 'Smile Dental',
      email: subs[0]!.email,
      balance: 40,
      autoRecharge: null,
      createdAt: expect.any(String),
    });

    const limited = await runLeadChat(agencyHost, { resource: 'subAccount', operation: 'getAll', limit: 2 });
    expect(limited.output('LeadChat').map((item) => item.json.id)).toEqual([subs[0]!.id, subs[1]!.id]);
  });

  test('the top-up: those under 100 credits, granted 500 each with a key of the day, end at their balance plus 500', async () => {
    const read = await runLeadChat(agencyHost, { resource: 'subAccount', operation: 'getAll', returnAll: true });
    const low = read.output('LeadChat').filter((item) => (item.json.balance as number) < 100);
    const topUp = {
      resource: 'credit',
      operation: 'grant',
      email: '={{ $json.email }}',
      amount: 500,
      idempotencyKey: "={{ 'top-up-2024-05-01-' + $json.id }}",
    };
    const granted = await runLeadChat(agencyHost, topUp, low);
    expect(granted.error).toBeUndefined();
    expect(granted.output('LeadChat').map((item) => [item.json.sub_account_id, item.json.new_balance])).toEqual([
      [subs[0]!.id, 540],
      [subs[2]!.id, 500],
    ]);
    // The same morning run again (a retried execution) grants nothing more.
    await runLeadChat(agencyHost, topUp, low);
    const after = await runLeadChat(agencyHost, { resource: 'subAccount', operation: 'getAll', returnAll: true });
    expect(after.output('LeadChat').map((item) => item.json.balance)).toEqual([540, 250, 500]);
  });

  test('Credit › Get Balance outputs the account’s balance, without its history', async () => {
    const sub = subs[1]!;
    const subHost = await createHost({
      leadChatApi: { baseUrl: gw.apiBase, apiKey: sub.apiKey, ignoreSslIssues: true },
    });
    const run = await runLeadChat(subHost, { resource: 'credit', operation: 'getBalance' });
    expect(run.error).toBeUndefined();
    const items = run.output('LeadChat');
    expect(items).toHaveLength(1);
    expect(items[0]!.pairedItem).toEqual({ item: 0 });
    expect(items[0]!.json).toMatchObject({
      balance: 250,
      lowBalanceThreshold: null,
      lowBalance: false,
      canSend: true,
      agency: { email: agency.email },
    });
    expect(items[0]!.json).not.toHaveProperty('transactions');
  });

  test('an account that is no agency is told that sub-accounts need an agency key', async () => {
    const standard = await createAccount(gw);
    const host = await createHost({
      leadChatApi: { baseUrl: gw.apiBase, apiKey: standard.apiKey, ignoreSslIssues: true },
    });
    const run = await runLeadChat(host, { resource: 'subAccount', operation: 'getAll', returnAll: true });
    expect(run.error?.message).toBe('LeadChat: Only agency accounts have sub-accounts');
    expect(run.error?.description).toMatch(
      /^HTTP 403 NOT_AGENCY from GET \/subaccounts\. .*API key of an agency account/,
    );
  });
});
