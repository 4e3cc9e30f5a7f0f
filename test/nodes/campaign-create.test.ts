import { createAccount, listAll, request, startGateway, type TestAccount, type TestGateway } from '../helpers/gateway';
import { CREDENTIAL, createHost, runLeadChat, type Host } from './helpers/n8n';

const locator = (value: string, mode: 'list' | 'id' = 'id') => ({ __rl: true, mode, value });

/** Campaign › Create on the channels that write first, run as workflows against the gateway. */
describe('LeadChat node: Campaign › Create', () => {
  let gw: TestGateway;
  let account: TestAccount;
  let host: Host;
  let listId: string;

  const api = (method: string, path: string, body?: unknown) =>
    request(gw, method, `/v1${path}`, { apiKey: account.apiKey, body });
  const campaignCount = async () => (await listAll(gw, account.apiKey, '/campaigns')).length;

  beforeAll(async () => {
    gw = await startGateway();
    account = await createAccount(gw);
    host = await createHost({ [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } });
    listId = (await api('POST', '/lists', { name: 'Spring leads' })).body.id;
  });
  afterAll(async () => {
    await gw.stop();
  });

  test('a Live SMS campaign with its list, opening message, language and bot', async () => {
    const run = await runLeadChat(host, {
      resource: 'campaign',
      operation: 'create',
      name: '  Spring cleaning  ',
      channel: 'sms',
      list: locator(listId),
      openingMessage: 'Hi {{first_name|there}}, a cleaning this spring?',
      status: 'live',
      additionalFields: {
        language: 'pt-br',
        instructions: 'Be brief.',
        companyInfo: 'Smile Dental, 12 Main Street.',
        handoffMessage: 'A person will answer soon.',
      },
    });
    expect(run.error).toBeUndefined();
    const campaign = run.output('LeadChat')[0]!.json;
    expect(campaign).toMatchObject({
      name: 'Spring cleaning',
      channel: 'sms',
      listId,
      openingMessage: 'Hi {{first_name|there}}, a cleaning this spring?',
      triggerOnNewContacts: true,
      status: 'live',
      language: 'pt-BR',
      bot: expect.objectContaining({
        active: true,
        instructions: 'Be brief.',
        companyInfo: 'Smile Dental, 12 Main Street.',
        handoffMessage: 'A person will answer soon.',
      }),
    });
    expect((await api('GET', `/campaigns/${campaign.id}`)).body).toMatchObject(campaign);
  });

  test('a custom-channel campaign names its channel; Draft by default', async () => {
    const run = await runLeadChat(host, {
      resource: 'campaign',
      operation: 'create',
      name: 'Web chat',
      channel: 'custom',
      customChannel: 'webchat',
    });
    expect(run.error).toBeUndefined();
    expect(run.output('LeadChat')[0]!.json).toMatchObject({
      channel: 'custom',
      customChannel: 'webchat',
      status: 'draft',
      listId: null,
    });
  });

  test("Live without what it needs to send fails with the gateway's reasons and what to do", async () => {
    const before = await campaignCount();
    const run = await runLeadChat(host, {
      resource: 'campaign',
      operation: 'create',
      name: 'Too early',
      channel: 'custom',
      status: 'live',
    });
    expect(run.error?.message).toMatch(
      /^LeadChat: The campaign cannot go Live: link it to a list \(listId\); give it an openingMessage; name its custom channel/,
    );
    expect(run.error?.description).toMatch(
      /^HTTP 400 CAMPAIGN_CANNOT_SEND from POST \/campaigns\. .*create it as Draft/,
    );
    expect(await campaignCount()).toBe(before);
  });

  test('with an Idempotency Key, a run made again (its answer lost) creates the campaign once and outputs it', async () => {
    const before = await campaignCount();
    const create = () =>
      runLeadChat(host, {
        resource: 'campaign',
        operation: 'create',
        name: 'Summer checkups',
        channel: 'sms',
        list: locator(listId),
        openingMessage: 'Hi {{first_name|there}}, time for a checkup?',
        status: 'live',
        additionalFields: { idempotencyKey: 'summer-checkups-2026' },
      });
    const first = await create();
    expect(first.error).toBeUndefined();
    const again = await create();
    expect(again.output('LeadChat')[0]!.json).toEqual(first.output('LeadChat')[0]!.json);
    expect(await campaignCount()).toBe(before + 1);
  });

  test('an unknown list is named', async () => {
    const run = await runLeadChat(host, {
      resource: 'campaign',
      operation: 'create',
      name: 'Lost',
      channel: 'sms',
      list: locator('lst_nope'),
    });
    expect(run.error?.httpCode).toBe('404');
    expect(run.error?.description).toContain('Check the List');
  });

  test.each([
    ['an empty name', { name: '   ' }, 'Name is empty'],
    [
      'an FAQ without its answer',
      {
        additionalFields: {
          faqs: {
            faq: [
              { question: 'Parking?', answer: 'Yes, behind the clinic.' },
              { question: 'Price?', answer: ' ' },
            ],
          },
        },
      },
      'FAQ 2 of Bot FAQs has no answer',
    ],
  ])('%s fails the item before any request', async (_case, parameters, message) => {
    const before = await campaignCount();
    const run = await runLeadChat(host, {
      resource: 'campaign',
      operation: 'create',
      name: 'Valid name',
      channel: 'sms',
      ...parameters,
    });
    expect(run.error?.message).toBe(message);
    expect(await campaignCount()).toBe(before);
  });
});
