import { existsSync, readFileSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { createAccount, removeDir, request, runCli, startGateway, tempDir, type TestGateway } from '../helpers/gateway';

/**
 * A store page damaged on disk (cut short by a bad copy, say) is found as the embedded store opens, by the check of
 * its documents that runs once the gateway listens: the gateway says so in its log, answers /readyz 503 naming the
 * file, refuses what needs the page with 503 STORE_DAMAGED (never a 500), serves what does not, and takes no backup
 * of the damage.
 */

jest.setTimeout(60_000);

let gw: TestGateway | undefined;
afterAll(async () => {
  if (!gw) return;
  await gw.stop();
  removeDir(gw.dataDir);
});

test('a contact page cut short inside its documents: the file named at /readyz and in the log, 503 at the read', async () => {
  const dataDir = tempDir('leadchat-damage-');
  const first = await startGateway({}, dataDir);
  const account = await createAccount(first);
  const contacts: string[] = [];
  for (const name of ['Ada', 'Ben', 'Cleo']) {
    const res = await request(first, 'POST', '/v1/contacts', {
      apiKey: account.apiKey,
      body: { firstName: name, phone: `+1415555${contacts.length + 2000}` },
    });
    expect(res.status).toBe(201);
    contacts.push(res.body.id);
  }
  expect(await first.stop()).toBe(0);

  // Its first line (the ids and keys) intact, its documents cut in the middle.
  const page = path.join(dataDir, 'store', 'contacts', '0.json');
  const content = readFileSync(page);
  const documents = content.indexOf(0x0a) + 1;
  truncateSync(page, documents + Math.floor((content.length - documents) / 2));

  gw = await startGateway({}, dataDir);
  const logged = await loggedAbout(gw, 'store/contacts/0.json');
  expect(logged).toEqual([
    expect.objectContaining({
      level: 50,
      reason: expect.stringMatching(/^it holds \d+ bytes of documents where \d+ were written: it was cut short/),
      msg: expect.stringMatching(/^the store's file store\/contacts\/0\.json is damaged: .*restore the data dir/),
    }),
  ]);

  const ready = await request(gw, 'GET', '/readyz');
  expect({ status: ready.status, body: ready.body }).toEqual({
    status: 503,
    body: {
      status: 'unavailable',
      checks: { store: 'damaged', jobs: 'ok', shutdown: 'no' },
      damaged: ['store/contacts/0.json'],
    },
  });

  const read = await request(gw, 'GET', `/v1/contacts/${contacts[1]}`, { apiKey: account.apiKey });
  expect({ status: read.status, code: read.body.error.code, retryAfter: read.headers['retry-after'] }).toEqual({
    status: 503,
    code: 'STORE_DAMAGED',
    retryAfter: '300',
  });
  expect(read.body.error.message).toMatch(/must restore it from a backup/);
  // What lives on other pages is served.
  expect((await request(gw, 'GET', '/v1/credits', { apiKey: account.apiKey })).status).toBe(200);

  // No backup of the damage: the last good one is kept.
  const file = path.join(dataDir, '..', `${path.basename(dataDir)}-backup.tar.gz`);
  const backup = await runCli(['backup', '--to', file], {
    LEADCHAT_URL: gw.url,
    LEADCHAT_DATA_DIR: dataDir,
    LEADCHAT_ADMIN_TOKEN: gw.adminToken,
  });
  expect(backup.code).toBe(1);
  expect(backup.stdout + backup.stderr).toMatch(/STORE_DAMAGED.*store\/contacts\/0\.json/s);
  expect(existsSync(file)).toBe(false);
});

/** The log lines naming `file`, once there is one (or after 10 s): the pages are checked while the gateway serves. */
async function loggedAbout(gateway: TestGateway, file: string): Promise<Array<Record<string, unknown>>> {
  for (const deadline = Date.now() + 10_000; ; await new Promise((resolve) => setTimeout(resolve, 20))) {
    const lines = gateway
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.file === file);
    if (lines.length > 0 || Date.now() > deadline) return lines;
  }
}
