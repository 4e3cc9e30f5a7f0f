import {
  createAccount,
  request,
  startGateway,
  untilIdle,
  type TestAccount,
  type TestGateway,
} from '../helpers/gateway';
import { byId, CREDENTIAL, createHost, runLeadChat, type Host } from './helpers/n8n';

/** Campaign › Reach Existing Contacts run as a workflow against the gateway: the contacts imported first get the opening once. */
describe('LeadChat node: reach the contacts already on a campaign list', () => {
  let gw: TestGateway;
  let account: TestAccount;
  let host: Host;

  const api = (method: string, path: string, body?: unknown) =>
    request(gw, method, `/v1${path}`, { apiKey: account.apiKey, body });

  beforeAll(async () => {
    gw = await startGateway({ LEADCHAT_JOB_POLL: '100ms' });
    account = await createAccount(gw);
    host = await createHost({ [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } });
  }, 60_000);
  afterAll(async () => {
    await gw.stop();
  });

  test('the output says how many were queued and why the others cannot be reached; a second run queues nothing', async () => {
    const list = (await api('POST', '/lists', { name: 'Imported' })).body;
    const people = [{ phone: '+15550100101' }, { phone: '+15550100102' }, { email: 'nophone@example.com' }];
    for (const person of people) {
      const contact = (await api('POST', '/contacts', person)).body;
      expect((await api('POST', `/lists/${list.id}/contacts`, { contactId: contact.id })).status).toBe(201);
    }
    const campaign = (
      await api('POST', '/campaigns', {
        name: 'Late',
        channel: 'sms',
        listId: list.id,
        openingMessage: 'Hi!',
        status: 'live',
      })
    ).body;
    const run = await runLeadChat(host, {
      resource: 'campaign',
      operation: 'reachExisting',
      campaign: byId(campaign.id),
    });
    expect(run.error).toBeUndefined();
    expect(run.output('LeadChat').map((i) => i.json)).toEqual([{ queued: 2, unreachable: { no_phone: 1 } }]);
    await untilIdle(gw);
    const again = await runLeadChat(host, {
      resource: 'campaign',
      operation: 'reachExisting',
      campaign: byId(campaign.id),
    });
    expect(again.output('LeadChat').map((i) => i.json)).toEqual([{ queued: 0, unreachable: {} }]);

    const draft = (
      await api('POST', '/campaigns', { name: 'Draft', channel: 'sms', listId: list.id, openingMessage: 'Hi!' })
    ).body;
    const refused = await runLeadChat(host, {
      resource: 'campaign',
      operation: 'reachExisting',
      campaign: byId(draft.id),
    });
    expect(refused.error?.message).toMatch(/make it Live/);
    expect(refused.error?.httpCode).toBe('409');
    // The code's own hint, never the credit grant's Idempotency Key one.
    expect(refused.error?.description).toMatch(/^HTTP 409 CAMPAIGN_NOT_LIVE .*Campaign > Update and Status Live\.$/);
  });
});
