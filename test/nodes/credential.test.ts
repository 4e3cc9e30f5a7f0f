import http from 'node:http';
import type { AddressInfo } from 'node:net';

import nock from 'nock';

import { createAccount, startGateway, type TestGateway } from '../helpers/gateway';
import { testCredential } from './helpers/credentialTest';
import { CREDENTIAL, createHost, runLeadChat } from './helpers/n8n';

/** A web server that is not LeadChat, answering every request with `status` and `body`. */
async function otherServer(
  status: number,
  body: string,
  type = 'text/html',
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The credential's "Test" button against the real gateway, other servers, and a hosted service. */
describe('LeadChat API credential test', () => {
  let gw: TestGateway;
  let throttled: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
    throttled = await startGateway({ LEADCHAT_RATE_LIMIT_PER_MINUTE: '1' });
  });
  afterAll(async () => {
    await gw.stop();
    await throttled.stop();
  });

  test('a valid key passes: the API refuses the probe phone (400 INVALID_PHONE), which proves key and address', async () => {
    const account = await createAccount(gw);
    const result = await testCredential({ baseUrl: gw.apiBase, apiKey: account.apiKey, ignoreSslIssues: true });
    expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
  });

  test('a wrong key fails with a message that says what to do', async () => {
    const result = await testCredential({ baseUrl: gw.apiBase, apiKey: 'lc_wrong_key', ignoreSslIssues: true });
    expect(result.status).toBe('Error');
    // Neither the console nor the CLI shows a key again: the message points at where it was shown, once.
    expect(result.message).toBe(
      "The API key was rejected (401). Enter the key as it was shown when made, once: by Settings > Account > API Key > Generate, or on a self-hosted gateway by its operator's leadchat-gateway account create or account rotate-key. Generating a new key invalidates the old one.",
    );
  });

  test('a wrong key fails where the gateway refuses the request before it reads a key: plain HTTP, a broken escape', async () => {
    const plain = await testCredential({ baseUrl: gw.apiBase.replace('https:', 'http:'), apiKey: 'lc_wrong_key' });
    expect(plain).toEqual({
      status: 'Error',
      message: expect.stringMatching(/HTTPS only: start the Base URL with https/),
    });
    const broken = await testCredential({ baseUrl: `${gw.url}/v1%E0`, apiKey: 'lc_wrong_key', ignoreSslIssues: true });
    expect(broken).toEqual({ status: 'Error', message: expect.stringMatching(/broken %-escape/) });
  });

  test('a Base URL with a query string fails saying what to remove, a key of its own included, even with a valid key', async () => {
    const account = await createAccount(gw);
    const query = await testCredential({ baseUrl: `${gw.apiBase}?x=1`, apiKey: account.apiKey, ignoreSslIssues: true });
    expect(query).toEqual({ status: 'Error', message: expect.stringMatching(/carries a query string: remove it/) });
    const keyed = await testCredential({
      baseUrl: `${gw.apiBase}?apiKey=abc`,
      apiKey: account.apiKey,
      ignoreSslIssues: true,
    });
    expect(keyed).toEqual({ status: 'Error', message: expect.stringMatching(/carries an API key of its own/) });
    const wrongKey = await testCredential({
      baseUrl: `${gw.apiBase}/?x=1`,
      apiKey: 'lc_wrong_key',
      ignoreSslIssues: true,
    });
    expect(wrongKey).toEqual({ status: 'Error', message: expect.stringMatching(/carries a query string: remove it/) });
  });

  test('a Base URL with stray spaces or a trailing slash passes, as the node reads it', async () => {
    const account = await createAccount(gw);
    for (const baseUrl of [`  ${gw.apiBase}  `, `${gw.apiBase}/`]) {
      const result = await testCredential({ baseUrl, apiKey: account.apiKey, ignoreSslIssues: true });
      expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
    }
  });

  test('a key pasted with a space or a line break around it passes, and the node then works on every endpoint', async () => {
    const account = await createAccount(gw);
    for (const apiKey of [`${account.apiKey} `, `${account.apiKey}\n`]) {
      const credential = { baseUrl: gw.apiBase, apiKey, ignoreSslIssues: true };
      expect(await testCredential(credential)).toEqual({ status: 'OK', message: 'Connection successful!' });
      const host = await createHost({ [CREDENTIAL]: credential });
      // The key goes in the query of List › Get Many and in the x-api-key header of List › Create.
      const created = await runLeadChat(host, { resource: 'list', operation: 'create', name: 'Pasted key' });
      expect(created.error).toBeUndefined();
      const listed = await runLeadChat(host, { resource: 'list', operation: 'getAll', returnAll: true });
      expect(listed.error).toBeUndefined();
      expect(listed.output('LeadChat').map((item) => item.json.name)).toContain('Pasted key');
    }
  });

  test('a Base URL without /v1 fails, even with a valid key, and says the URL ends with /v1', async () => {
    const account = await createAccount(gw);
    const result = await testCredential({ baseUrl: gw.url, apiKey: account.apiKey, ignoreSslIssues: true });
    expect(result).toEqual({
      status: 'Error',
      message: expect.stringMatching(/No LeadChat API answers at this Base URL \(404\).*\/v1/),
    });
  });

  test('another server fails: one answering 404, and one answering every address with a page (200)', async () => {
    const notFound = await otherServer(404, '<h1>Not Found</h1>');
    const page = await otherServer(200, '<html><body>Welcome</body></html>');
    const json = await otherServer(200, JSON.stringify({ ok: true }), 'application/json');
    try {
      const missing = await testCredential({ baseUrl: `${notFound.url}/v1`, apiKey: 'lc_any' });
      expect(missing).toEqual({
        status: 'Error',
        message: expect.stringMatching(/No LeadChat API answers at this Base URL \(404\)/),
      });
      for (const server of [page, json]) {
        const other = await testCredential({ baseUrl: `${server.url}/v1`, apiKey: 'lc_any' });
        expect(other).toEqual({
          status: 'Error',
          message: expect.stringMatching(/answered, but not as the LeadChat API/),
        });
      }
    } finally {
      await Promise.all([notFound.close(), page.close(), json.close()]);
    }
  });

  test('a throttled address fails with the reason instead of passing', async () => {
    const account = await createAccount(throttled);
    const credential = { baseUrl: throttled.apiBase, apiKey: account.apiKey, ignoreSslIssues: true };
    expect(await testCredential(credential)).toEqual({ status: 'OK', message: 'Connection successful!' });
    const result = await testCredential(credential);
    expect(result).toEqual({
      status: 'Error',
      message: expect.stringMatching(/over its rate limit \(429\).*test again/),
    });
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

    test('400 INVALID_PHONE passes and 403 fails with its own message; the key travels as the apiKey query parameter', async () => {
      const scope = nock('https://api.leadchat.test')
        .get('/v1/contacts')
        .query({ phoneNumber: 'credential-check', apiKey: 'hosted-key' })
        .reply(400, { error: { code: 'INVALID_PHONE', message: 'The phone number lacks a valid country code' } })
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
