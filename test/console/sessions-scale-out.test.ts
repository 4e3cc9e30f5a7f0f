import { createTestDatabase } from '../helpers/postgres';
import { removeDir, request, startGateway, type TestGateway } from '../helpers/gateway';
import { consoleAccount, setPassword, signIn, withSession } from './support';

/**
 * Two gateway processes on one PostgreSQL database (run in the postgres project only): a console session and the
 * sign-in budget belong to the deployment, not to the process that happened to take the request.
 */
jest.setTimeout(60_000);

const gws: TestGateway[] = [];
beforeAll(async () => {
  const env = { LEADCHAT_DATABASE_URL: await createTestDatabase() };
  for (let i = 0; i < 2; i++) gws.push(await startGateway(env));
});
afterAll(async () => {
  for (const gw of gws) {
    await gw.stop();
    removeDir(gw.dataDir);
  }
});

test('a session started on one process works on the other, and sign-out on either ends it on both', async () => {
  const [one, two] = gws as [TestGateway, TestGateway];
  const owner = await consoleAccount(one);
  const session = await signIn(one, owner.email, owner.password);
  expect(session.reply.status).toBe(200);
  expect((await withSession(two, session, 'GET', '/v1/settings')).status).toBe(200);
  expect((await withSession(two, session, 'GET', '/console/settings/bot')).status).toBe(200);
  expect(
    (
      await withSession(two, session, 'PUT', '/v1/settings', {
        body: { customChannelWebhookUrl: 'https://example.com/shared' },
      })
    ).status,
  ).toBe(200);
  expect((await withSession(two, session, 'PUT', '/v1/settings', { body: { helpText: 'x' }, csrf: null })).status).toBe(
    403,
  );

  const out = await withSession(two, session, 'DELETE', '/console/api/session', { headers: { origin: two.url } });
  expect(out.status).toBe(204);
  expect((await withSession(one, session, 'GET', '/v1/settings')).status).toBe(401);
});

test('a password reset through one process ends the sessions every process knows', async () => {
  const [one, two] = gws as [TestGateway, TestGateway];
  const owner = await consoleAccount(one);
  const session = await signIn(two, owner.email, owner.password);
  expect((await withSession(one, session, 'GET', '/v1/settings')).status).toBe(200);
  expect((await setPassword(one, owner.id, 'another long password')).body.sessionsEnded).toBe(1);
  expect((await withSession(two, session, 'GET', '/v1/settings')).status).toBe(401);
});

test('sign-in attempts are counted across processes', async () => {
  const [one, two] = gws as [TestGateway, TestGateway];
  const owner = await consoleAccount(one);
  for (let i = 0; i < 10; i++) expect((await signIn(gws[i % 2]!, owner.email, `wrong-${i}`)).reply.status).toBe(401);
  expect((await signIn(one, owner.email, owner.password)).reply.status).toBe(429);
  expect((await signIn(two, owner.email, owner.password)).reply.status).toBe(429);
  expect((await request(one, 'GET', '/v1/settings', { apiKey: owner.apiKey })).status).toBe(200);
});

test('only failed sign-ins are counted, on whichever process: right ones leave the budget whole', async () => {
  const [one, two] = gws as [TestGateway, TestGateway];
  const owner = await consoleAccount(one);
  for (let i = 0; i < 12; i++) expect((await signIn(gws[i % 2]!, owner.email, owner.password)).reply.status).toBe(200);
  for (let i = 0; i < 10; i++) expect((await signIn(gws[i % 2]!, owner.email, `wrong-${i}`)).reply.status).toBe(401);
  for (const gw of [one, two]) {
    const { reply } = await signIn(gw, owner.email, owner.password);
    expect(reply.status).toBe(429);
    expect(reply.body.error.message).toMatch(/^Too many failed sign-ins; try again in 1?\d minutes$/);
  }
});
