import nock from 'nock';

import { endpointPath, keyPlacementFor } from '../../nodes/LeadChat/transport/keyPlacement';
import { CREDENTIAL, createHost, runLeadChat, triggerNode } from './helpers/n8n';
import { WebhookHost } from './helpers/webhookHost';

const KEY = 'lc_live_KEY_in_header_only_987654';
const BASE = 'https://api.leadchat.test/v1';

/** Where the API key goes: as the spec shows on its endpoints, in the x-api-key header everywhere else. */
describe('API key placement', () => {
  describe('the rule', () => {
    test.each([
      ['GET', '/contacts', 'query'],
      ['GET', '/lists', 'query'],
      ['POST', '/send_custom_channel_message', 'query'],
      ['POST', '/incoming_custom_channel_message', 'query'],
      ['POST', '/contacts', 'bearer'],
      ['POST', '/lists/lst_1/contacts', 'bearer'],
      ['POST', '/subaccounts/credits', 'header'],
      ['GET', '/conversations', 'header'],
      ['GET', '/conversations/cnv_1', 'header'],
      ['POST', '/contacts/ct_1/bot', 'header'],
      ['POST', '/contacts/ct_1/messages', 'header'],
      ['POST', '/conversations/cnv_1/assign', 'header'],
      ['GET', '/members', 'header'],
      ['GET', '/contacts/ct_1', 'header'],
      ['GET', '/lists/lst_1/contacts', 'header'],
      ['POST', '/webhooks', 'header'],
      ['GET', '/webhooks/wh_1', 'header'],
      ['DELETE', '/webhooks/wh_1', 'header'],
      ['GET', '/anything/new', 'header'],
    ])('%s %s: %s', (method, path, placement) => {
      expect(keyPlacementFor(method, path)).toBe(placement);
    });

    test('the method is compared in any case, and a missing one is GET', () => {
      expect(keyPlacementFor('get', '/contacts')).toBe('query');
      expect(keyPlacementFor(undefined, '/lists')).toBe('query');
      expect(keyPlacementFor('DELETE', '/contacts')).toBe('header');
    });

    test.each([
      ['https://api.leadchat.test/v1/contacts?email=a', 'https://api.leadchat.test/v1', '/contacts'],
      ['https://api.leadchat.test/v1/lists/L1/contacts', 'https://api.leadchat.test/v1/', '/lists/L1/contacts'],
      ['https://gw.local:8443/base/v1/webhooks/', 'https://gw.local:8443/base/v1', '/webhooks'],
      ['/contacts', 'https://api.leadchat.test/v1', '/contacts'],
      ['https://other.test/v1/conversations', 'https://api.leadchat.test/v1', '/conversations'],
    ])('%s under %s is %s', (url, base, path) => {
      expect(endpointPath(url, base)).toBe(path);
    });
  });

  describe('on the wire, against a hosted service', () => {
    const urls: string[] = [];
    const record = (scope: nock.Scope) => scope.on('request', (req: { path: string }) => urls.push(req.path));
    beforeEach(() => {
      urls.length = 0;
    });
    afterEach(() => nock.cleanAll());
    // nock patches Node's http module for the whole worker process: undo it so later test files talk to real servers.
    afterAll(() => nock.restore());

    test('every conversation operation sends the key in x-api-key, never in the URL or as Bearer', async () => {
      const scope = nock('https://api.leadchat.test', {
        reqheaders: { 'x-api-key': KEY },
        badheaders: ['authorization'],
      })
        .get('/v1/conversations')
        .query({ status: 'handed_off', limit: '3' })
        .reply(200, { data: [{ id: 'cnv_1' }], nextCursor: null })
        .get('/v1/conversations/cnv_1')
        .query({})
        .reply(200, { id: 'cnv_1', contactId: 'ct_1' })
        .post('/v1/contacts/ct_1/bot', { active: false })
        .query({})
        .reply(200, { contactId: 'ct_1', bot: { active: false } })
        .post('/v1/contacts/ct_1/bot', { active: true })
        .query({})
        .reply(200, { contactId: 'ct_1', bot: { active: true } })
        .post('/v1/contacts/ct_1/messages', { body: 'A person here', conversationId: 'cnv_1' })
        .query({})
        .reply(201, { id: 'msg_1', body: 'A person here' })
        .get('/v1/members')
        .query({ limit: '100' })
        .reply(200, {
          data: [{ id: 'mem_1', email: 'maya@acme.example', name: 'Maya', role: 'agent', status: 'active' }],
          nextCursor: null,
        })
        .post('/v1/conversations/cnv_1/assign', { memberId: 'mem_1' })
        .query({})
        .reply(200, { id: 'cnv_1', assigneeId: 'mem_1' });
      record(scope);
      const host = await createHost({ [CREDENTIAL]: { baseUrl: BASE, apiKey: KEY } });
      const runs = [
        await runLeadChat(host, {
          resource: 'conversation',
          operation: 'getAll',
          limit: 3,
          filters: { status: 'handed_off' },
        }),
        await runLeadChat(host, { resource: 'conversation', operation: 'get', conversationId: 'cnv_1' }),
        await runLeadChat(host, { resource: 'conversation', operation: 'handOff', contactId: 'ct_1' }),
        await runLeadChat(host, { resource: 'conversation', operation: 'resumeBot', contactId: 'ct_1' }),
        await runLeadChat(host, {
          resource: 'conversation',
          operation: 'sendAsTeamMember',
          contactId: 'ct_1',
          text: 'A person here',
          additionalFields: { conversationId: 'cnv_1' },
        }),
        await runLeadChat(host, {
          resource: 'conversation',
          operation: 'assign',
          conversationId: 'cnv_1',
          member: { __rl: true, mode: 'email', value: 'maya@acme.example' },
        }),
      ];
      for (const run of runs) expect(run.error).toBeUndefined();
      expect(scope.isDone()).toBe(true);
      expect(urls).toHaveLength(7);
      for (const url of urls) expect(url).not.toMatch(/apiKey|lc_live/);
    });

    test("the trigger's webhook subscription calls send the key in x-api-key, never in the URL", async () => {
      const trigger = triggerNode({ events: ['handoff'], registration: 'automatic' }, 'wh-key-placement');
      const host = await WebhookHost.start(
        { [CREDENTIAL]: { baseUrl: BASE, apiKey: KEY } },
        { nodes: [trigger] },
        trigger.name,
      );
      const subscription = { id: 'wh_1', url: host.url, events: ['handoff'] };
      const scope = nock('https://api.leadchat.test', {
        reqheaders: { 'x-api-key': KEY },
        badheaders: ['authorization'],
      })
        // checkExists looks for the subscriptions of the trigger's URL: none yet.
        .get('/v1/webhooks')
        .query({ limit: 100 })
        .reply(200, { data: [], nextCursor: null })
        .post('/v1/webhooks', (body: { events: string[] }) => body.events.includes('handoff'))
        .query({})
        .reply(201, { ...subscription, secret: 'whsec_' + Buffer.from('s').toString('base64') })
        .get('/v1/webhooks')
        .query({ limit: 100 })
        .reply(200, { data: [subscription], nextCursor: null })
        .delete('/v1/webhooks/wh_1')
        .query({})
        .reply(204);
      record(scope);
      try {
        await host.activate();
        expect(host.staticData.webhookId).toBe('wh_1');
        await host.deactivate();
      } finally {
        await host.close();
      }
      expect(scope.isDone()).toBe(true);
      expect(urls).toEqual(['/v1/webhooks?limit=100', '/v1/webhooks', '/v1/webhooks?limit=100', '/v1/webhooks/wh_1']);
    });
  });
});
