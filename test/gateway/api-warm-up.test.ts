import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { BACKEND, createAccount, removeDir, request } from '../helpers/gateway';
import { startInProcess, type InProcessGateway } from '../helpers/in-process';
import { dumpDatabase } from '../helpers/postgres';

/**
 * Before its port opens, a gateway runs an incoming message's path (gateway/src/warm-up.ts, http/warm-up.ts): on
 * PostgreSQL in transactions that it rolls back, over every connection of the requests' pool. None of it is kept,
 * and the gateway then serves as any other.
 */
const TRACES = ['warm-up', 'acc_warmup', '+15555550100', '+15555550101'];

/** Every file of the data dir, as text. */
function filesText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), 'latin1'))
    .join('\n');
}

/** The connections of a gateway's requests' pool open on its database. */
async function requestConnections(gateway: InProcessGateway): Promise<number> {
  const client = new Client({ connectionString: gateway.engine.config.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND application_name = 'leadchat-gateway'`,
    );
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

describe('the warm-up before the port opens', () => {
  let gw: InProcessGateway;
  beforeAll(async () => {
    gw = await startInProcess({ LEADCHAT_WARM_UP: '1' });
  });
  afterAll(async () => {
    await gw.stop();
    removeDir(gw.dataDir);
  });

  test('leaves nothing of its own in the store', async () => {
    const stored =
      BACKEND === 'postgres'
        ? (await dumpDatabase(gw.engine.config.databaseUrl!)).map((table) => table.content).join('\n')
        : filesText(gw.dataDir);
    for (const trace of TRACES) expect(stored).not.toContain(trace);
  });

  // The requests' pool is PostgreSQL's: the embedded store has none to open.
  if (BACKEND === 'postgres') {
    test("has opened every connection of the requests' pool", async () => {
      expect(await requestConnections(gw)).toBe(10);
    });

    test('with LEADCHAT_WARM_UP=0 the port opens without it: the pool opens its connections as requests come', async () => {
      const cold = await startInProcess({ LEADCHAT_WARM_UP: '0' });
      try {
        expect(await requestConnections(cold)).toBeLessThan(10);
      } finally {
        await cold.stop();
        removeDir(cold.dataDir);
      }
    });
  }

  test('then receives a message as any gateway does', async () => {
    const account = await createAccount(gw);
    const res = await request(gw, 'POST', '/v1/incoming_custom_channel_message', {
      apiKey: account.apiKey,
      body: { customData: { messageSid: 'after-the-warm-up', fromId: '+15555550123', toId: 'biz', body: 'Hello' } },
    });
    expect(res.status).toBe(200);
    const stored = await request(gw, 'GET', `/v1/messages/${res.body.messageId}`, { apiKey: account.apiKey });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ body: 'Hello', fromId: '+15555550123', direction: 'incoming' });
  });
});
