import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as tar from 'tar';
import {
  createAccount,
  freePort,
  keepAliveClient,
  removeDir,
  runCli,
  startGateway,
  tempDir,
  type TestAccount,
  type TestGateway,
} from '../helpers/gateway';
import { dataUri, getBytes, png } from './api-support';

/**
 * `leadchat-gateway backup` of a running gateway on the embedded store, and `restore` into a new data dir. A backup
 * taken while clients ingest holds every message acknowledged before it began, and a gateway started on the
 * restored dir serves them; whatever a restore refuses, it leaves the data dir as it was.
 */

jest.setTimeout(180_000);

const CLIENTS = 16;
/**
 * Backups are taken once this many messages have been acknowledged: early, and with a thousand messages and their
 * images in the journal. Snapshot points amid checkpoints, which seal and release journals, are proven in
 * store-snapshot.test.ts.
 */
const BACKUP_AFTER = [200, 1000];

interface Posted {
  sender: string;
  text: string;
  media?: Buffer;
}

const posted = new Map<string, Posted>();
/** messageSid → the messageId acknowledged for it. */
const acked = new Map<string, string>();

function incoming(sid: string) {
  const { sender, text, media } = posted.get(sid)!;
  return {
    customData: {
      messageSid: sid,
      fromId: sender,
      toId: 'backup-business',
      body: text,
      channel: 'backup-test',
      ...(media ? { mediaUrl: dataUri('image/png', media), mediaContentType: 'image/png' } : {}),
    },
  };
}

/** CLIENTS clients post new messages (every tenth with an embedded image) until `stop()`; `acked` grows as they are answered. */
function ingest(gw: TestGateway, apiKey: string) {
  const { call, close } = keepAliveClient(gw, apiKey, CLIENTS);
  let stopping = false;
  let next = 0;
  const failures: string[] = [];
  const worker = async () => {
    while (!stopping) {
      const n = next++;
      const sid = `b-m${n}`;
      posted.set(sid, {
        sender: `backup-sender-${n % 24}`,
        text: `message ${n} ${'·'.repeat(n % 150)}`,
        ...(n % 10 === 0 ? { media: png(2 + (n % 7), 2) } : {}),
      });
      const reply = await call('POST', '/v1/incoming_custom_channel_message', incoming(sid)).catch((err: Error) => ({
        status: 0,
        body: err.message,
      }));
      if (reply.status !== 200 || reply.body?.success !== true)
        failures.push(`${sid}: ${reply.status} ${JSON.stringify(reply.body)}`);
      else acked.set(sid, reply.body.messageId);
    }
  };
  const running = Promise.all(Array.from({ length: CLIENTS }, worker));
  return {
    failures,
    stop: async () => {
      stopping = true;
      await running;
      close();
    },
  };
}

async function until(condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Every message of `expected` is served by `gw` as it was posted, its image included. */
async function expectServed(gw: TestGateway, account: TestAccount, expected: Map<string, string>): Promise<void> {
  const { call, close } = keepAliveClient(gw, account.apiKey, CLIENTS);
  const entries = [...expected];
  const missing: string[] = [];
  try {
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let entry = entries.pop(); entry; entry = entries.pop()) {
          const [sid, messageId] = entry;
          const res = await call('GET', `/v1/messages/${messageId}`);
          if (res.status !== 200) {
            missing.push(sid);
            continue;
          }
          const sent = posted.get(sid)!;
          expect(res.body).toEqual(
            expect.objectContaining({
              id: messageId,
              messageSid: sid,
              body: sent.text,
              fromId: sent.sender,
              direction: 'incoming',
            }),
          );
          if (sent.media) {
            const file = await getBytes(gw, account, res.body.media.url);
            expect({ sid, status: file.status, same: file.bytes.equals(sent.media) }).toEqual({
              sid,
              status: 200,
              same: true,
            });
          }
        }
      }),
    );
  } finally {
    close();
  }
  expect(missing).toEqual([]);
}

describe('backup of a running gateway, restored into a new data dir', () => {
  const work = tempDir('leadchat-backup-');
  let gw: TestGateway;
  let account: TestAccount;
  let cliEnv: Record<string, string>;

  beforeAll(async () => {
    // The generated admin token and certificate, in the data dir, as a default install has them.
    gw = await startGateway({ LEADCHAT_ADMIN_TOKEN: '', LEADCHAT_CACHE_DOCUMENTS: '200' });
    cliEnv = { LEADCHAT_URL: gw.url, LEADCHAT_DATA_DIR: gw.dataDir };
    const token = readFileSync(path.join(gw.dataDir, 'admin-token'), 'utf8').trim();
    account = await createAccount({ ...gw, adminToken: token });
  });

  afterAll(async () => {
    await gw?.stop();
    if (gw) removeDir(gw.dataDir);
    removeDir(work);
  });

  test(`taken while ${CLIENTS} clients ingest, holds every message acknowledged before it began`, async () => {
    const load = ingest(gw, account.apiKey);
    const backups: Array<{ file: string; before: Map<string, string> }> = [];
    try {
      for (const [i, after] of BACKUP_AFTER.entries()) {
        await until(() => acked.size >= after);
        const file = path.join(work, `backup-${i}.tar.gz`);
        const before = new Map(acked);
        const res = await runCli(['backup', '--to', file], cliEnv);
        expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
        expect(res.json).toEqual({
          backup: file,
          bytes: expect.any(Number),
          manifest: {
            kind: 'leadchat-gateway backup',
            storeFormat: 3,
            gatewayVersion: expect.any(String),
            createdAt: expect.any(String),
            files: expect.any(Number),
            checksums: expect.any(Number),
          },
        });
        expect(res.json.manifest.checksums).toBe(res.json.manifest.files);
        // The gateway served on while the backup was taken and written.
        const during = acked.size - before.size;
        expect(during).toBeGreaterThan(0);
        backups.push({ file, before });
      }
    } finally {
      await load.stop();
    }
    expect(load.failures).toEqual([]);
    // Only the archives are left beside them, and no snapshot in the data dir.
    expect(readdirSync(work).sort()).toEqual(backups.map((b) => path.basename(b.file)).sort());
    expect(readdirSync(gw.dataDir).filter((name) => name.startsWith('.'))).toEqual([]);

    for (const { file, before } of backups) {
      const dataDir = path.join(work, `restored-${path.basename(file, '.tar.gz')}`);
      const restored = await runCli(['restore', '--from', file], { LEADCHAT_DATA_DIR: dataDir });
      expect({ code: restored.code, stderr: restored.stderr }).toEqual({ code: 0, stderr: '' });
      expect(restored.json).toEqual(
        expect.objectContaining({ restored: dataDir, manifest: expect.objectContaining({ storeFormat: 3 }) }),
      );
      // The certificate and the admin token came along: clients that trust the one and the CLI that holds the other
      // keep working against the restored gateway.
      expect(readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8')).toBe(gw.ca);
      expect(readFileSync(path.join(dataDir, 'admin-token'), 'utf8')).toBe(
        readFileSync(path.join(gw.dataDir, 'admin-token'), 'utf8'),
      );

      const copy = await startGateway({ LEADCHAT_ADMIN_TOKEN: '' }, dataDir);
      try {
        // The store opened as after a crash at the snapshot point: cleanly.
        expect(copy.output()).not.toMatch(/warn|error|"level":(40|50|60)/i);
        await expectServed(copy, account, before);
        const cli = await runCli(['account', 'rotate-key', '--email', account.email], {
          LEADCHAT_URL: copy.url,
          LEADCHAT_DATA_DIR: dataDir,
        });
        expect(cli.code).toBe(0);
      } finally {
        await copy.stop();
      }
    }
  });

  test('a second restore onto the restored (now not empty) data dir is refused, and changes nothing', async () => {
    const dataDir = path.join(work, 'restored-backup-0');
    const file = path.join(work, 'backup-0.tar.gz');
    const listing = readdirSync(dataDir).sort();
    const res = await runCli(['restore', '--from', file], { LEADCHAT_DATA_DIR: dataDir });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^leadchat-gateway: the data dir .* is not empty; restore only into an empty data dir/);
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(dataDir).sort()).toEqual(listing);

    const occupied = path.join(work, 'occupied');
    mkdirSync(occupied);
    writeFileSync(path.join(occupied, 'notes.txt'), 'mine');
    expect((await runCli(['restore', '--from', file], { LEADCHAT_DATA_DIR: occupied })).code).toBe(1);
    expect(readdirSync(occupied)).toEqual(['notes.txt']);
  });

  test('an empty existing data dir is filled in place', async () => {
    const dataDir = path.join(work, 'empty-dir');
    mkdirSync(dataDir);
    const res = await runCli(['restore', '--from', path.join(work, 'backup-0.tar.gz')], { LEADCHAT_DATA_DIR: dataDir });
    expect(res.code).toBe(0);
    expect(readdirSync(dataDir).sort()).toEqual(['admin-token', 'format', 'media', 'store', 'tls']);
  });
});

/** Unpacks a backup, lets `edit` change it, and packs it again as a new archive. */
async function edited(from: string, to: string, edit: (dir: string) => void, extra: string[] = []): Promise<void> {
  const dir = `${to}.d`;
  mkdirSync(dir, { recursive: true });
  await tar.x({ file: from, cwd: dir });
  edit(dir);
  await tar.c({ file: to, cwd: dir, gzip: true, preservePaths: true }, ['manifest.json', 'data', ...extra]);
}

describe('what restore refuses, leaving the data dir untouched', () => {
  const work = tempDir('leadchat-restore-');
  let good: string;

  beforeAll(async () => {
    // Of a stopped gateway that held an account: its pages written, as a backup taken before an upgrade holds them.
    const gw = await startGateway({ LEADCHAT_ADMIN_TOKEN: '' });
    try {
      const token = readFileSync(path.join(gw.dataDir, 'admin-token'), 'utf8').trim();
      await createAccount({ ...gw, adminToken: token });
      expect(await gw.stop()).toBe(0);
      good = path.join(work, 'good.tar.gz');
      const res = await runCli(['backup', '--to', good], { LEADCHAT_DATA_DIR: gw.dataDir });
      expect(res.code).toBe(0);
    } finally {
      await gw.stop();
      removeDir(gw.dataDir);
    }
  });

  afterAll(() => removeDir(work));

  /** Restores `file` into a new data dir: refused, with a sentence on stderr, and no data dir left behind. */
  async function refused(file: string): Promise<string> {
    const dataDir = path.join(work, 'target', 'data');
    const res = await runCli(['restore', '--from', file], { LEADCHAT_DATA_DIR: dataDir });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^leadchat-gateway: /);
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(dataDir)).toBe(false);
    // Nor any temp dir beside it.
    expect(existsSync(path.join(work, 'target')) ? readdirSync(path.join(work, 'target')) : []).toEqual([]);
    return res.stderr;
  }

  test('an archive of a newer store format, or of a newer release', async () => {
    const newer = path.join(work, 'newer.tar.gz');
    await edited(good, newer, (dir) => {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
      writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ ...manifest, storeFormat: 99 }));
    });
    expect(await refused(newer)).toMatch(
      /was written by leadchat-gateway .* in store format 99, newer than this gateway \(leadchat-gateway .*\) reads \(store format 3\): upgrade the gateway/,
    );
    // Or of this format, made by a newer release.
    const later = path.join(work, 'later.tar.gz');
    await edited(good, later, (dir) => {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
      writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ ...manifest, gatewayVersion: '99.0.0' }));
    });
    expect(await refused(later)).toMatch(
      /was written by leadchat-gateway 99\.0\.0 in store format 3, newer than this gateway \(leadchat-gateway .*\) reads \(store format 3\)/,
    );
  });

  test('an archive cut short, a file that is no archive, a missing file', async () => {
    const bytes = readFileSync(good);
    const cut = path.join(work, 'cut.tar.gz');
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect(await refused(cut)).toMatch(/cannot be read as a LeadChat gateway backup/);
    const junk = path.join(work, 'junk.tar.gz');
    writeFileSync(junk, 'not an archive at all');
    expect(await refused(junk)).toMatch(/cannot be read as a LeadChat gateway backup/);
    expect(await refused(path.join(work, 'absent.tar.gz'))).toMatch(/does not exist/);
  });

  test('an archive without a manifest, or with fewer files than it lists', async () => {
    const bare = path.join(work, 'bare.tar.gz');
    await edited(good, bare, (dir) => writeFileSync(path.join(dir, 'manifest.json'), '{}'));
    expect(await refused(bare)).toMatch(/is not a LeadChat gateway backup/);
    const short = path.join(work, 'short.tar.gz');
    await edited(good, short, (dir) => rmSync(path.join(dir, 'data', 'format')));
    expect(await refused(short)).toMatch(/is incomplete/);
  });

  test('a store page cut short inside an otherwise valid archive: verify and restore name the file', async () => {
    const page = path.join('data', 'store', 'accounts', '0.json');
    const cut = path.join(work, 'cut-page.tar.gz');
    await edited(good, cut, (dir) => {
      const content = readFileSync(path.join(dir, page));
      writeFileSync(path.join(dir, page), content.subarray(0, content.length - 40));
    });
    const verified = await runCli(['backup', 'verify', cut], {});
    expect({ code: verified.code, stdout: verified.stdout, stderr: verified.stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: `leadchat-gateway: ${cut} is damaged: data/store/accounts/0.json does not match the SHA-256 its manifest keeps of it\n`,
    });
    expect(await refused(cut)).toMatch(/is damaged: data\/store\/accounts\/0\.json does not match the SHA-256/);

    // An archive of a release before checksums were kept: its pages are still checked as pages.
    const older = path.join(work, 'cut-page-unlisted.tar.gz');
    await edited(good, older, (dir) => {
      const { checksums: _sums, ...manifest } = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
      writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
      const content = readFileSync(path.join(dir, page));
      writeFileSync(path.join(dir, page), content.subarray(0, content.length - 40));
    });
    expect(await refused(older)).toMatch(
      /is damaged: its data\/store\/accounts\/0\.json is not a store page \(it holds \d+ bytes of documents where \d+ were written/,
    );
    expect((await runCli(['backup', 'verify', older], {})).code).toBe(1);
  });

  test('a file changed, added or missing against the checksums, whatever it is', async () => {
    const changed = path.join(work, 'changed.tar.gz');
    await edited(good, changed, (dir) => writeFileSync(path.join(dir, 'data', 'admin-token'), 'another-token\n'));
    expect(await refused(changed)).toMatch(/is damaged: data\/admin-token does not match the SHA-256/);
    const added = path.join(work, 'added.tar.gz');
    await edited(good, added, (dir) => writeFileSync(path.join(dir, 'data', 'store', 'notes.txt'), 'hello'));
    expect(await refused(added)).toMatch(/holds data\/store\/notes\.txt, which its manifest does not list/);
  });

  test('backup verify: a sound archive, read without a data dir or a backend, and a pg_dump named as one', async () => {
    const res = await runCli(['backup', 'verify', good], {});
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
    expect(res.json).toEqual({
      verified: good,
      bytes: readFileSync(good).length,
      checked: 'every file against its SHA-256, every store page as a page',
      manifest: expect.objectContaining({
        kind: 'leadchat-gateway backup',
        storeFormat: 3,
        checksums: expect.any(Number),
      }),
    });
    const dump = path.join(work, 'leadchat.dump');
    writeFileSync(dump, Buffer.concat([Buffer.from('PGDMP'), Buffer.alloc(200, 1)]));
    const onPostgres = await runCli(['backup', 'verify', dump], {
      LEADCHAT_DATABASE_URL: 'postgres://leadchat@127.0.0.1:1/leadchat',
    });
    expect(onPostgres.code).toBe(1);
    expect(onPostgres.stderr).toBe(
      `leadchat-gateway: ${dump} is a PostgreSQL dump (pg_dump), not a LeadChat gateway backup: check it with pg_restore --list (README, "Backups")\n`,
    );
    expect((await runCli(['backup', 'verify'], {})).stderr).toMatch(/backup verify needs the archive/);
  });

  test('an archive holding a link, or a path leading outside the data dir', async () => {
    const linked = path.join(work, 'linked.tar.gz');
    await edited(good, linked, (dir) => symlinkSync('/etc', path.join(dir, 'data', 'etc')));
    expect(await refused(linked)).toMatch(/"data\/etc", of type SymbolicLink/);

    const outside = path.join(work, 'outside.tar.gz');
    writeFileSync(path.join(work, 'escape.txt'), 'x');
    await edited(good, outside, () => undefined, ['../escape.txt']);
    expect(await refused(outside)).toMatch(/"\.\.\/escape\.txt", which leads outside/);
  });
});

describe('where backup cannot run', () => {
  const work = tempDir('leadchat-backup-refused-');
  afterAll(() => removeDir(work));

  test('on PostgreSQL it points at pg_dump, without calling anything', async () => {
    const res = await runCli(['backup', '--to', path.join(work, 'b.tar.gz')], {
      LEADCHAT_DATABASE_URL: 'postgres://leadchat@127.0.0.1:1/leadchat',
      LEADCHAT_ADMIN_TOKEN: 'an-admin-token-0123456789',
      LEADCHAT_DATA_DIR: work,
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/runs on PostgreSQL .*pg_dump .*README, "Backups"/);
    expect(readdirSync(work)).toEqual([]);
  });

  test("on PostgreSQL with no admin token in the environment (a shell, not the service's file), backup and restore still point at the database's own tools", async () => {
    const env = { LEADCHAT_DATABASE_URL: 'postgres://leadchat@127.0.0.1:1/leadchat', LEADCHAT_DATA_DIR: work };
    const backup = await runCli(['backup', '--to', path.join(work, 'b.tar.gz')], env);
    expect({ code: backup.code, stderr: backup.stderr }).toEqual({
      code: 1,
      stderr: expect.stringMatching(/runs on PostgreSQL .*pg_dump .*README, "Backups"/),
    });
    const restore = await runCli(['restore', '--from', path.join(work, 'b.tar.gz')], env);
    expect({ code: restore.code, stderr: restore.stderr }).toEqual({
      code: 1,
      stderr: expect.stringMatching(/runs on PostgreSQL.*pg_restore .*README, "Backups"/),
    });
    expect(readdirSync(work)).toEqual([]);
  });

  test('a running gateway the command does not reach: both named, and no file under the name given', async () => {
    const gw = await startGateway();
    try {
      const file = path.join(work, 'elsewhere.tar.gz');
      // The timer's environment file without the gateway's port: the data dir's lock is held, the default port is not it.
      const res = await runCli(['backup', '--to', file], {
        LEADCHAT_DATA_DIR: gw.dataDir,
        LEADCHAT_ADMIN_TOKEN: gw.adminToken,
        LEADCHAT_URL: `https://127.0.0.1:${await freePort()}`,
      });
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(
        new RegExp(
          `^leadchat-gateway: Cannot reach the gateway at https://127\\.0\\.0\\.1:\\d+: .*; a gateway \\(pid ${gw.process.pid}\\) runs on the data dir ${gw.dataDir}: run backup with the settings it runs with \\(LEADCHAT_HOST and LEADCHAT_PORT, or LEADCHAT_URL\\)\n$`,
        ),
      );
      expect(existsSync(file)).toBe(false);
    } finally {
      await gw.stop();
      removeDir(gw.dataDir);
    }
  });

  test('a data dir that holds no store: a clear error, and no file under the name given', async () => {
    const dataDir = path.join(work, 'data');
    mkdirSync(dataDir);
    writeFileSync(path.join(dataDir, 'admin-token'), 'some-token-0123456789\n');
    const file = path.join(work, 'b.tar.gz');
    const res = await runCli(['backup', '--to', file], {
      LEADCHAT_URL: 'https://127.0.0.1:1',
      LEADCHAT_DATA_DIR: dataDir,
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^leadchat-gateway: .*data holds no embedded store to back up/);
    expect(readdirSync(work)).toEqual(['data']);
    expect(readdirSync(dataDir)).toEqual(['admin-token']);
  });
});
