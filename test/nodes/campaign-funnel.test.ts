import { createAccount, request, startGateway, type TestAccount, type TestGateway } from '../helpers/gateway';
import { byId, CREDENTIAL, createHost, runLeadChat, type Host } from './helpers/n8n';

/** Campaign › Get Funnel run as a workflow against the gateway: the same counts the API gives, for the range asked. */
describe('LeadChat node: campaign funnel', () => {
  let gw: TestGateway;
  let account: TestAccount;
  let host: Host;
  let campaignId: string;

  const api = (method: string, path: string, body?: unknown) =>
    request(gw, method, `/v1${path}`, { apiKey: account.apiKey, body });

  beforeAll(async () => {
    gw = await startGateway({ LEADCHAT_JOB_POLL: '100ms' });
    account = await createAccount(gw);
    host = await createHost({ [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } });
    const list = (await api('POST', '/lists', { name: 'Leads' })).body;
    const campaign = await api('POST', '/campaigns', {
      name: 'Spring',
      channel: 'sms',
      listId: list.id,
      openingMessage: 'Hi!',
      triggerOnNewContacts: true,
      status: 'live',
    });
    expect(campaign.status).toBe(201);
    campaignId = campaign.body.id;
    for (const phone of ['+15550100001', '+15550100002']) {
      const contact = (await api('POST', '/contacts', { phone })).body;
      expect((await api('POST', `/lists/${list.id}/contacts`, { contactId: contact.id })).status).toBe(201);
    }
    for (let i = 0; i < 100; i++) {
      const funnel = await api('GET', `/campaigns/${campaignId}/funnel`);
      if (funnel.body.totals.openingSent === 2) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await api('POST', '/channels/sms/incoming', { phone: '+15550100001', body: 'Tell me more' })).status).toBe(
      200,
    );
  }, 60_000);
  afterAll(async () => {
    await gw.stop();
  });

  test("the output is the API's funnel of the campaign: totals and days", async () => {
    const run = await runLeadChat(host, { resource: 'campaign', operation: 'getFunnel', campaign: byId(campaignId) });
    expect(run.error).toBeUndefined();
    const [item] = run.output('LeadChat');
    expect(item!.json).toEqual((await api('GET', `/campaigns/${campaignId}/funnel`)).body);
    expect(item!.json.totals).toEqual({
      added: 2,
      openingSent: 2,
      replied: 1,
      handedOff: 0,
      optedOut: 0,
      goalReached: 0,
      failed: 0,
    });
  });

  test('From, To and Time Zone go to the API; a timestamp from a date expression counts as its day', async () => {
    const run = await runLeadChat(host, {
      resource: 'campaign',
      operation: 'getFunnel',
      campaign: byId(campaignId),
      additionalFields: { from: '2024-03-01T00:00:00.000-05:00', to: '2024-03-07', timezone: 'America/New_York' },
    });
    expect(run.error).toBeUndefined();
    const json = run.output('LeadChat')[0]!.json as any;
    expect(json).toMatchObject({ campaignId, from: '2024-03-01', to: '2024-03-07', timezone: 'America/New_York' });
    expect(json.days).toHaveLength(7);
    expect(json.totals.added).toBe(0);
  });

  test('a From that is not a date fails the item before any call; the API refuses an unknown zone', async () => {
    const bad = await runLeadChat(host, {
      resource: 'campaign',
      operation: 'getFunnel',
      campaign: byId(campaignId),
      additionalFields: { from: 'last week' },
    });
    expect(bad.error?.message).toBe('From is not a date');
    const zone = await runLeadChat(host, {
      resource: 'campaign',
      operation: 'getFunnel',
      campaign: byId(campaignId),
      additionalFields: { timezone: 'Mars/Olympus' },
    });
    expect(zone.error?.message).toMatch(/^LeadChat: timezone/);
  });
});
