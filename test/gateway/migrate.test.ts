import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { createTestDatabase } from '../helpers/postgres';
import { freePort, GATEWAY_MAIN, removeDir, startGateway, tempDir } from '../helpers/gateway';
import {
  advanceClock,
  api,
  createAccount,
  dataUri,
  getBytes,
  png,
  Receiver,
  uniquePhone,
  untilIdle,
} from './api-support';

/** `leadchat-gateway migrate`: a self-hoster moves an embedded data dir to PostgreSQL and finds everything there. */

jest.setTimeout(90_000);

function migrate(
  dataDir: string,
  to: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [GATEWAY_MAIN, 'migrate', '--to', to],
      { env: { PATH: process.env.PATH ?? '', LEADCHAT_DATA_DIR: dataDir, ...env } },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('every record, queued delivery and media file moves to an empty database; a second run is refused', async () => {
  const dataDir = tempDir('leadchat-migrate-');
  const url = await createTestDatabase();
  // The embedded gateway: an explicit empty LEADCHAT_DATABASE_URL keeps it on lowdb in either test project.
  const embedded = await startGateway({ LEADCHAT_DATABASE_URL: '', LEADCHAT_WEBHOOK_RETRIES: '1h' }, dataDir);
  const receiver = await Receiver.start(() => ({ status: 503 }));
  try {
    const agency = await createAccount(embedded, { type: 'agency' });
    const sub = await createAccount(embedded, { parentEmail: agency.email });
    await api(embedded, agency, 'POST', 'subaccounts/credits', { body: { email: sub.email, amount: 12.5 } });
    const phone = uniquePhone();
    const contact = (await api(embedded, sub, 'POST', 'contacts', { body: { phone, firstName: 'Ann' } })).body;
    const list = (await api(embedded, sub, 'POST', 'lists', { body: { name: 'Leads' } })).body;
    await api(embedded, sub, 'POST', `lists/${list.id}/contacts`, { body: { contactId: contact.id } });
    const image = png(3, 3);
    const incoming = await api(embedded, sub, 'POST', 'incoming_custom_channel_message', {
      body: {
        customData: {
          messageSid: 'sid-1',
          fromId: 'web-1',
          toId: 'biz',
          body: 'photo',
          mediaUrl: dataUri('image/png', image),
          mediaContentType: 'image/png',
        },
      },
    });
    await api(embedded, sub, 'PUT', 'settings', { body: { customChannelWebhookUrl: receiver.url } });
    // Refused once by the receiver, then waiting an hour for its retry: a queued job at the move.
    const reply = (
      await api(embedded, sub, 'POST', 'send_custom_channel_message', {
        body: { customData: { fromId: 'web-1', customChannel: 'chat', body: 'Hi' } },
      })
    ).body;
    await receiver.waitFor(1);
    const message = (await api(embedded, sub, 'GET', `messages/${incoming.body.messageId}`)).body;
    expect(await embedded.stop()).toBe(0);

    const moved = await migrate(dataDir, url);
    expect({ code: moved.code, stderr: moved.stderr }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(moved.stdout);
    expect(report.to).not.toContain('postgres:postgres@');
    // The messages: the contact's, the hand-off notice it was sent (no campaign answers it) and the reply.
    expect(report.copied).toEqual(
      expect.objectContaining({
        accounts: 2,
        contacts: 2,
        lists: 1,
        memberships: 1,
        messages: 3,
        media: 1,
        mediaFiles: 1,
        transactions: 1,
      }),
    );
    expect(report.copied.jobs).toBeGreaterThanOrEqual(1);

    const again = await migrate(dataDir, url);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('not empty');

    const onPostgres = await startGateway({ LEADCHAT_DATABASE_URL: url, LEADCHAT_WEBHOOK_RETRIES: '1h' });
    try {
      expect((await api(onPostgres, sub, 'GET', 'contacts', { query: { phoneNumber: phone } })).body).toEqual(contact);
      expect(
        (await api(onPostgres, sub, 'GET', `lists/${list.id}/contacts`)).body.data.map((c: { id: string }) => c.id),
      ).toEqual([contact.id]);
      expect((await api(onPostgres, sub, 'GET', `messages/${message.id}`)).body).toEqual(message);
      const media = await getBytes(onPostgres, sub, message.media.url);
      expect(media.bytes.equals(image)).toBe(true);
      expect((await api(onPostgres, sub, 'GET', 'credits')).body.balance).toBe(12.5);
      // The sid is still taken: a repeat answers the original.
      const repeat = await api(onPostgres, sub, 'POST', 'incoming_custom_channel_message', {
        body: { customData: { messageSid: 'sid-1', fromId: 'web-1', toId: 'biz', body: 'photo' } },
      });
      expect(repeat.body.messageId).toBe(message.id);
      // The queued delivery came along, with its attempt.
      const delivery = (await api(onPostgres, sub, 'GET', `messages/${reply.messageId}`)).body;
      expect(delivery).toEqual(
        expect.objectContaining({
          status: 'pending',
          deliveries: [expect.objectContaining({ attempts: [expect.objectContaining({ status: 503 })] })],
        }),
      );
    } finally {
      await onPostgres.stop();
      removeDir(onPostgres.dataDir);
    }
  } finally {
    await embedded.stop();
    await receiver.close();
    removeDir(dataDir);
  }
});

test('a data dir holding no store is refused, named, and left as it was', async () => {
  const url = await createTestDatabase();
  const empty = tempDir('leadchat-migrate-empty-');
  const missing = path.join(empty, 'data');
  try {
    for (const dataDir of [empty, missing]) {
      const moved = await migrate(dataDir, url);
      expect({ code: moved.code, stdout: moved.stdout, stderr: moved.stderr }).toEqual({
        code: 1,
        stdout: '',
        stderr: `leadchat-gateway: ${dataDir} holds no embedded store to migrate (LEADCHAT_DATA_DIR)\n`,
      });
    }
    expect(readdirSync(empty)).toEqual([]);
  } finally {
    removeDir(empty);
  }
});

test("run with the gateway's environment (its LEADCHAT_DATABASE_URL, no admin token), a database it cannot reach is named without its password, with what to check", async () => {
  const dataDir = tempDir('leadchat-migrate-unreachable-');
  try {
    const embedded = await startGateway({ LEADCHAT_DATABASE_URL: '' }, dataDir);
    expect(await embedded.stop()).toBe(0);
    const port = await freePort();
    const url = `postgres://leadchat:hunter2-db@127.0.0.1:${port}/leadchat`;
    // The env file of a gateway about to move: the database it will run on, the token generated into the data dir.
    const moved = await migrate(dataDir, url, { LEADCHAT_DATABASE_URL: url });
    expect({ code: moved.code, stdout: moved.stdout, stderr: moved.stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: `leadchat-gateway: cannot open the database --to postgres://leadchat:***@127.0.0.1:${port}/leadchat: connect ECONNREFUSED 127.0.0.1:${port}; check that PostgreSQL runs and listens at 127.0.0.1:${port} (listen_addresses, port), that this machine may connect to it (pg_hba.conf, a firewall), and that the URL names the right host and port\n`,
    });
    // The data dir is left as it was, its lock released.
    expect(readdirSync(dataDir).filter((name) => name.startsWith('gateway.lock'))).toEqual([]);
  } finally {
    removeDir(dataDir);
  }
});

test('an auto-recharge request a receiver took still waits for its grant on the database', async () => {
  const dataDir = tempDir('leadchat-migrate-');
  const url = await createTestDatabase();
  const retries = { LEADCHAT_WEBHOOK_RETRIES: '1s' };
  const embedded = await startGateway({ LEADCHAT_DATABASE_URL: '', ...retries }, dataDir);
  const receiver = await Receiver.start(() => ({ status: 200 }));
  try {
    const agency = await createAccount(embedded, { type: 'agency' });
    const sub = await createAccount(embedded, { parentEmail: agency.email });
    await api(embedded, agency, 'POST', 'webhooks', { body: { url: receiver.url, events: ['auto_recharge'] } });
    await api(embedded, agency, 'PUT', 'subaccounts/auto-recharge', {
      body: { email: sub.email, threshold: 10, amount: 50 },
    });
    const [asked] = await receiver.waitFor(1);
    await untilIdle(embedded);
    expect(await embedded.stop()).toBe(0);

    expect((await migrate(dataDir, url)).code).toBe(0);
    const onPostgres = await startGateway({ LEADCHAT_DATABASE_URL: url, LEADCHAT_TEST_CLOCK: '1', ...retries });
    try {
      // Far past the retry schedule: the receiver took the request, and its workflow is to grant it.
      await advanceClock(onPostgres, '1h');
      await untilIdle(onPostgres);
      expect(receiver.requests.map((r) => r.body.idempotency_key)).toEqual([asked!.body.idempotency_key]);
      expect((await api(onPostgres, sub, 'GET', 'credits')).body.autoRecharge).toMatchObject({ pending: true });
    } finally {
      await onPostgres.stop();
      removeDir(onPostgres.dataDir);
    }
  } finally {
    await embedded.stop();
    await receiver.close();
    removeDir(dataDir);
  }
});
