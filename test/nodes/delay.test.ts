import nock from 'nock';

import { createAccount, request, startGateway, type TestAccount, type TestGateway } from '../helpers/gateway';
import { CREDENTIAL, createHost, runLeadChat, type Host } from './helpers/n8n';

/** Delay Opening Message on Lead > Capture and List > Add Contact: checked in the node, sent as `delay`. */
describe('LeadChat node: Delay Opening Message', () => {
  describe('against the gateway', () => {
    let gw: TestGateway;
    let account: TestAccount;
    let host: Host;
    let listId: string;

    beforeAll(async () => {
      gw = await startGateway();
      account = await createAccount(gw);
      host = await createHost({ [CREDENTIAL]: { baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true } });
      listId = (await request(gw, 'POST', '/v1/lists', { apiKey: account.apiKey, body: { name: 'Delayed funnel' } }))
        .body.id;
    });
    afterAll(async () => {
      await gw.stop();
    });

    const members = async () =>
      (
        (await request(gw, 'GET', `/v1/lists/${listId}/contacts`, { apiKey: account.apiKey })).body.data as Array<{
          id: string;
        }>
      ).length;

    test('the delay holds the opening message of a Live campaign that long, from Lead > Capture and List > Add Contact', async () => {
      const campaign = await request(gw, 'POST', '/v1/campaigns', {
        apiKey: account.apiKey,
        body: {
          name: 'Funnel',
          channel: 'sms',
          listId,
          openingMessage: 'Hi {{first_name}}!',
          triggerOnNewContacts: true,
          status: 'live',
        },
      });
      expect(campaign.status).toBe(201);
      const started = Date.now();
      const capture = await runLeadChat(host, {
        resource: 'lead',
        operation: 'capture',
        phone: '+1 415 555 0181',
        firstName: 'Later',
        list: { __rl: true, mode: 'id', value: listId },
        additionalFields: { delay: '2h' },
      });
      const lead = capture.output('LeadChat')[0]!.json;
      expect(lead).toMatchObject({ created: true, addedToList: true, delay: '2h' });

      const other = await request(gw, 'POST', '/v1/contacts', {
        apiKey: account.apiKey,
        body: { phone: '+14155550182' },
      });
      const add = await runLeadChat(host, {
        resource: 'list',
        operation: 'addContact',
        list: { __rl: true, mode: 'id', value: listId },
        contactId: other.body.id,
        additionalFields: { delay: '1h30m' },
      });
      expect(add.output('LeadChat')[0]!.json).toMatchObject({ added: true });

      const conversations = (
        await request(gw, 'GET', '/v1/conversations', {
          apiKey: account.apiKey,
          query: { campaignId: campaign.body.id },
        })
      ).body.data as Array<{ contactId: string; next: { kind: string; at: string } | null }>;
      const dueIn = (contactId: unknown) => {
        const next = conversations.find((c) => c.contactId === contactId)!.next!;
        expect(next.kind).toBe('opening');
        return Date.parse(next.at) - started;
      };
      expect(dueIn(lead.id)).toBeGreaterThanOrEqual(2 * 3600_000 - 1000);
      expect(dueIn(lead.id)).toBeLessThan(2 * 3600_000 + 60_000);
      expect(dueIn(other.body.id)).toBeGreaterThanOrEqual(90 * 60_000 - 1000);
      expect(dueIn(other.body.id)).toBeLessThan(90 * 60_000 + 60_000);
      const sent = await request(gw, 'GET', `/v1/contacts/${lead.id}/messages`, { apiKey: account.apiKey });
      expect(sent.body.data).toEqual([]);
    });

    test('a delay the node accepts but the server bounds (over 30 days) comes back with the API message', async () => {
      const contact = await request(gw, 'POST', '/v1/contacts', {
        apiKey: account.apiKey,
        body: { phone: '+14155550183' },
      });
      const run = await runLeadChat(host, {
        resource: 'list',
        operation: 'addContact',
        list: { __rl: true, mode: 'id', value: listId },
        contactId: contact.body.id,
        additionalFields: { delay: '45d' },
      });
      expect(run.error?.message).toMatch(/^LeadChat: delay must be between/);
      expect(run.error?.description).toMatch(
        /^HTTP 400 INVALID_DURATION from POST \/lists\/lst_\w+\/contacts\. Fix the field named in the message/,
      );
    });

    test.each([['soon'], ['15 minutes'], ['1.5h'], ['30m1h'], ['-5m'], ['0m'], ['15']])(
      'Lead > Capture with delay %j fails naming the field and an example, before anything is created',
      async (delay) => {
        const before = await members();
        const run = await runLeadChat(host, {
          resource: 'lead',
          operation: 'capture',
          phone: '+1 415 555 0177',
          firstName: 'Patience',
          list: { __rl: true, mode: 'id', value: listId },
          additionalFields: { email: 'patience@example.com', delay },
        });
        expect(run.error?.message).toBe(`Delay Opening Message "${delay}" is not a duration such as "15m"`);
        expect(run.error?.description).toMatch(/"15m", "2h" or "1h30m"/);
        expect(await members()).toBe(before);
        const lookup = await request(gw, 'GET', '/v1/contacts', {
          apiKey: account.apiKey,
          query: { email: 'patience@example.com' },
        });
        expect(lookup.status).toBe(404);
      },
    );

    test('List > Add Contact with a bad delay fails the item; Continue On Fail keeps the others going', async () => {
      const contact = await request(gw, 'POST', '/v1/contacts', {
        apiKey: account.apiKey,
        body: { phone: '+14155550178' },
      });
      const run = await runLeadChat(
        host,
        {
          resource: 'list',
          operation: 'addContact',
          list: { __rl: true, mode: 'id', value: listId },
          contactId: contact.body.id,
          additionalFields: { delay: '={{ $json.delay }}' },
        },
        [{ json: { delay: 'later' } }, { json: { delay: '' } }],
        { continueOnFail: true },
      );
      const [bad, good] = run.output('LeadChat');
      expect(bad).toEqual({
        json: {
          error: 'Delay Opening Message "later" is not a duration such as "15m"',
          details: expect.stringMatching(/1h30m/),
        },
        pairedItem: { item: 0 },
      });
      expect(good).toEqual({
        json: { success: true, listId, contactId: contact.body.id, added: true },
        pairedItem: { item: 1 },
      });
    });
  });

  describe('on the wire', () => {
    afterEach(() => nock.cleanAll());
    // nock patches Node's http module for the whole worker process: undo it so later test files talk to real servers.
    afterAll(() => nock.restore());

    test('the delay goes in the add-to-list body as `delay`; none is sent when it is empty', async () => {
      const scope = nock('https://api.leadchat.test')
        .get('/v1/contacts')
        .query(true)
        .reply(404, { error: { code: 'NOT_FOUND', message: 'Contact not found' } })
        .post('/v1/contacts')
        .reply(201, { id: 'ct_9', phone: '+14155550100', firstName: 'Dee' })
        .post('/v1/lists/L1/contacts', { contactId: 'ct_9', delay: '1h30m' })
        .reply(201, { success: true, added: true })
        .post('/v1/lists/L1/contacts', { contactId: 'ct_9' })
        .reply(200, { success: true, added: false });
      const host = await createHost({ [CREDENTIAL]: { baseUrl: 'https://api.leadchat.test/v1', apiKey: 'k' } });
      const capture = await runLeadChat(host, {
        resource: 'lead',
        operation: 'capture',
        phone: '+14155550100',
        firstName: 'Dee',
        list: { __rl: true, mode: 'id', value: 'L1' },
        additionalFields: { delay: ' 1h30m ' },
      });
      expect(capture.output('LeadChat')[0]!.json).toMatchObject({ id: 'ct_9', addedToList: true, delay: '1h30m' });
      const add = await runLeadChat(host, {
        resource: 'list',
        operation: 'addContact',
        list: { __rl: true, mode: 'id', value: 'L1' },
        contactId: 'ct_9',
        additionalFields: { delay: '' },
      });
      expect(add.output('LeadChat')[0]!.json).toMatchObject({ added: false });
      expect(scope.isDone()).toBe(true);
    });
  });
});
