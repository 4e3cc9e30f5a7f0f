import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { UpgradeStep } from '../../gateway/src/store/lowdb/format.js' with { 'resolution-mode': 'import' };
import { createAccount, freePort, removeDir, request, runCli, startGateway, tempDir } from '../helpers/gateway';
import { logLines } from '../helpers/log-lines';
import { gatewayModule } from '../helpers/gateway-modules';

type FormatModule = typeof import('../../gateway/src/store/lowdb/format.js', { with: { 'resolution-mode': 'import' } });

/**
 * The embedded store's data dir records its format: a new gateway upgrades an older dir at start and says so, and
 * a dir of a newer format than the gateway reads is refused, by serve and migrate alike, without a change.
 */

jest.setTimeout(60_000);

const formatOf = (dataDir: string) => JSON.parse(readFileSync(path.join(dataDir, 'format'), 'utf8'));
/** This build's release: the format file names the release that last opened the data dir. */
const VERSION: string = JSON.parse(readFileSync(path.resolve(__dirname, '../../gateway/package.json'), 'utf8')).version;

/** The page files of every collection of a store dir. */
const pageFiles = (storeDir: string): string[] =>
  readdirSync(storeDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) =>
      readdirSync(path.join(storeDir, entry.name))
        .filter((name) => /^\d+\.json$/.test(name))
        .map((name) => path.join(storeDir, entry.name, name)),
    );

/** Every file under `dir` with a digest of its content. */
function contents(dir: string, prefix = ''): Record<string, string> {
  const all: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) Object.assign(all, contents(full, `${prefix}${name}/`));
    else all[`${prefix}${name}`] = createHash('sha256').update(readFileSync(full)).digest('hex');
  }
  return all;
}

describe('a data dir made by a gateway', () => {
  const dataDir = tempDir('leadchat-format-');
  let apiKey: string;

  afterAll(() => removeDir(dataDir));

  test('a new data dir records the format at first start', async () => {
    const gw = await startGateway({}, dataDir);
    apiKey = (await createAccount(gw)).apiKey;
    expect(await gw.stop()).toBe(0);
    expect(formatOf(dataDir)).toEqual({ storeFormat: 3, gatewayVersion: VERSION });
  });

  test('a data dir from before formats were recorded is upgraded at start, with a log line, and keeps its data', async () => {
    // As a gateway of format 1 left it: no format file, and pages without their documents' places in order.
    rmSync(path.join(dataDir, 'format'));
    const pages = pageFiles(path.join(dataDir, 'store'));
    expect(pages.length).toBeGreaterThan(0);
    for (const page of pages) {
      const [head, docs] = readFileSync(page, 'utf8').split('\n');
      const { seqs: _placed, ...keys } = JSON.parse(head!);
      writeFileSync(page, `${JSON.stringify(keys)}\n${docs}`);
    }
    const gw = await startGateway({ LEADCHAT_LOG_LEVEL: 'info' }, dataDir);
    try {
      const line = gw
        .output()
        .split('\n')
        .find((l) => l.includes('data dir upgraded'));
      expect(JSON.parse(line ?? '{}')).toEqual(
        expect.objectContaining({
          level: 30,
          dataDir,
          from: 'unversioned',
          to: 3,
          msg: expect.stringMatching(
            /^data dir upgraded to store format 3: .*format 2: pages and journal records keep.*; format 3: conversations get/,
          ),
        }),
      );
      expect(formatOf(dataDir)).toEqual({ storeFormat: 3, gatewayVersion: VERSION });
      for (const page of pages)
        expect(JSON.parse(readFileSync(page, 'utf8').split('\n')[0]!).seqs).toEqual(expect.any(Array));
      expect((await request(gw, 'GET', '/v1/credits', { apiKey })).status).toBe(200);
    } finally {
      expect(await gw.stop()).toBe(0);
    }
    // Said once: the next start finds the format recorded.
    const again = await startGateway({ LEADCHAT_LOG_LEVEL: 'info' }, dataDir);
    expect(again.output()).not.toContain('data dir upgraded');
    expect(await again.stop()).toBe(0);
  });

  test('a data dir of a newer format is refused by serve and by migrate, and nothing in it changes', async () => {
    writeFileSync(path.join(dataDir, 'format'), '{"storeFormat":99}\n');
    const before = contents(dataDir);
    const env = {
      LEADCHAT_DATA_DIR: dataDir,
      LEADCHAT_PORT: String(await freePort()),
      LEADCHAT_HOST: '127.0.0.1',
      LEADCHAT_ADMIN_TOKEN: 'test-admin-token-0123456789',
    };
    const serve = await runCli(['serve'], env);
    expect(serve.code).toBe(1);
    expect(logLines(serve.stdout + serve.stderr)).toEqual([
      expect.objectContaining({
        level: 60,
        msg: 'the gateway could not start',
        reason: `the data dir ${dataDir} was written in store format 99, newer than this gateway (leadchat-gateway ${VERSION}) reads (store format 3): upgrade the gateway (README, "Upgrades"); nothing was changed`,
      }),
    ]);
    const migrate = await runCli(['migrate', '--to', 'postgres://leadchat@127.0.0.1:1/leadchat'], env);
    expect(migrate.code).toBe(1);
    expect(migrate.stderr).toMatch(
      /was written in store format 99, newer than this gateway \(leadchat-gateway .*\) reads \(store format 3\): upgrade the gateway/,
    );
    expect(contents(dataDir)).toEqual(before);
  });

  test('a data dir a newer release opened is refused, naming both releases, though its format is the same', async () => {
    writeFileSync(path.join(dataDir, 'format'), '{"storeFormat":3,"gatewayVersion":"99.1.0"}\n');
    const before = contents(dataDir);
    const serve = await runCli(['serve'], {
      LEADCHAT_DATA_DIR: dataDir,
      LEADCHAT_PORT: String(await freePort()),
      LEADCHAT_HOST: '127.0.0.1',
      LEADCHAT_ADMIN_TOKEN: 'test-admin-token-0123456789',
    });
    expect(serve.code).toBe(1);
    expect(logLines(serve.stdout + serve.stderr)).toEqual([
      expect.objectContaining({
        level: 60,
        reason: `the data dir ${dataDir} was written by leadchat-gateway 99.1.0 in store format 3, newer than this gateway (leadchat-gateway ${VERSION}) reads (store format 3): upgrade the gateway (README, "Upgrades"); nothing was changed`,
      }),
    ]);
    expect(contents(dataDir)).toEqual(before);
    // An earlier release's record is no obstacle: this one upgrades it and names itself.
    writeFileSync(path.join(dataDir, 'format'), '{"storeFormat":3,"gatewayVersion":"0.0.1"}\n');
    const gw = await startGateway({}, dataDir);
    expect(await gw.stop()).toBe(0);
    expect(formatOf(dataDir)).toEqual({ storeFormat: 3, gatewayVersion: VERSION });
  });

  test('a damaged format file is refused with what it should read', async () => {
    writeFileSync(path.join(dataDir, 'format'), 'garbage');
    const serve = await runCli(['serve'], {
      LEADCHAT_DATA_DIR: dataDir,
      LEADCHAT_PORT: String(await freePort()),
      LEADCHAT_HOST: '127.0.0.1',
    });
    expect(serve.code).toBe(1);
    const [refusal, ...others] = logLines(serve.stdout + serve.stderr);
    expect(others).toEqual([]);
    expect(refusal).toEqual(expect.objectContaining({ level: 60, msg: 'the gateway could not start' }));
    expect(refusal!.reason).toMatch(
      /format is damaged \(it should read \{"storeFormat":<number>\}\); refusing to open the data dir$/,
    );
    // A message, not a stack trace.
    expect(refusal).not.toHaveProperty('err');
  });
});

describe('upgrade steps', () => {
  let upgradeDataDir: FormatModule['upgradeDataDir'];
  const dirs: string[] = [];

  beforeAll(async () => {
    ({ upgradeDataDir } = (await gatewayModule(
      path.resolve(__dirname, '../../gateway/dist/store/lowdb/format.js'),
    )) as FormatModule);
  });
  afterAll(() => dirs.forEach(removeDir));

  /** A data dir of format `format` holding a store; and a log that keeps its lines. */
  function dataDirAt(format: number | undefined) {
    const dir = tempDir('leadchat-steps-');
    dirs.push(dir);
    mkdirSync(path.join(dir, 'store'));
    if (format !== undefined) writeFileSync(path.join(dir, 'format'), JSON.stringify({ storeFormat: format }));
    const lines: Array<{ fields: any; message: string }> = [];
    return { dir, lines, log: { info: (fields: object, message: string) => void lines.push({ fields, message }) } };
  }

  const step = (to: number, ran: number[], fail = false): UpgradeStep => ({
    to,
    what: `step to ${to}`,
    run: async () => {
      if (fail) throw new Error(`step to ${to} failed`);
      ran.push(to);
    },
  });

  test('run in order from the recorded format, each recorded once done, and logged together', async () => {
    const { dir, lines, log } = dataDirAt(2);
    const ran: number[] = [];
    await upgradeDataDir(dir, log, [step(2, ran), step(3, ran), step(4, ran)]);
    expect(ran).toEqual([3, 4]);
    expect(formatOf(dir)).toEqual({ storeFormat: 4, gatewayVersion: VERSION });
    expect(lines).toEqual([
      {
        fields: { dataDir: dir, from: 2, to: 4, steps: ['format 3: step to 3', 'format 4: step to 4'] },
        message: 'data dir upgraded to store format 4: format 3: step to 3; format 4: step to 4',
      },
    ]);
  });

  test('an unversioned dir counts as format 1; a step that fails leaves the format of the last step done, and the next start goes on from there', async () => {
    const { dir, log } = dataDirAt(undefined);
    const ran: number[] = [];
    await expect(upgradeDataDir(dir, log, [step(2, ran), step(3, ran, true)])).rejects.toThrow('step to 3 failed');
    expect(formatOf(dir)).toEqual({ storeFormat: 2, gatewayVersion: VERSION });
    await upgradeDataDir(dir, log, [step(2, ran), step(3, ran)]);
    expect(ran).toEqual([2, 3]);
    expect(formatOf(dir)).toEqual({ storeFormat: 3, gatewayVersion: VERSION });
  });

  test('a new data dir is recorded at the newest format, running no step and saying nothing', async () => {
    const dir = tempDir('leadchat-steps-new-');
    dirs.push(dir);
    const ran: number[] = [];
    const lines: unknown[] = [];
    await upgradeDataDir(dir, { info: (...args) => void lines.push(args) }, [step(2, ran)]);
    expect({ ran, lines, format: formatOf(dir) }).toEqual({
      ran: [],
      lines: [],
      format: { storeFormat: 2, gatewayVersion: VERSION },
    });
  });
});
