import nock from 'nock';

import { createAccount, startGateway, type TestGateway } from '../helpers/gateway';
import { testCredential } from './helpers/credentialTest';

/** The credential's "Test" button against the real gateway, and against a hosted service that answers 403. */
describe('LeadChat API credential test', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw.stop();
  });

  test('a valid key passes: the probe finds no contact (404), which proves the key was accepted', async () => {
    const account = await createAccount(gw);
    const result = await testCredential({ baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true });
    expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
  });

  test('a wrong key fails with a message that says what to do', async () => {
    const result = await testCredential({ baseUrl: gw.apiBase, apiKey: 'lc_wrong_key', ignoreSslIssues: true });
    expect(result.status).toBe('Error');
    expect(result.message).toMatch(/API key was rejected \(401\).*Settings > Account > API Key/);
  });

  test("the gateway's self-signed certificate is refused unless Ignore SSL Issues is on", async () => {
    const account = await createAccount(gw);
    const result = await testCredential({ baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: false });
    expect(result.status).toBe('Error');
    expect(result.message).toMatch(/SELF_SIGNED|self.signed/i);
  });

  describe('hosted service', () => {
    afterEach(() => nock.cleanAll());
    // nock patches Node's http module for the whole worker process: undo it so later test files talk to real servers.
    afterAll(() => nock.restore());

    test('200 with a contact passes and 403 fails with its own message; the key travels as the apiKey query parameter', async () => {
      const scope = nock('https://api.leadchat.test')
        .get('/v1/contacts')
        .query({ email: 'credential-check@invalid.invalid', apiKey: 'hosted-key' })
        .reply(200, { id: 'c1', email: 'credential-check@invalid.invalid' })
        .get('/v1/contacts')
        .query(true)
        .reply(403, { error: { code: 'FORBIDDEN', message: 'Forbidden' } });
      const ok = await testCredential({ baseUrl: 'https://api.leadchat.test/v1', apiKey: 'hosted-key' });
      expect(ok.status).toBe('OK');
      const forbidden = await testCredential({ baseUrl: 'https://api.leadchat.test/v1', apiKey: 'hosted-key' });
      expect(forbidden).toEqual({ status: 'Error', message: expect.stringMatching(/not allowed.*\(403\)/) });
      expect(scope.isDone()).toBe(true);
    });
  });
});
