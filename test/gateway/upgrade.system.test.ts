import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import {
  BACKEND,
  freePort,
  removeDir,
  request,
  runCli,
  startGateway,
  tempDir,
  type TestGateway,
} from '../helpers/gateway';
import { logLines } from '../helpers/log-lines';
import { builtRelease, releases } from '../helpers/release';
import { Receiver } from './api-support';
import { readStory, tellStory } from './upgrade-story';

/**
 * An upgrade keeps every conversation as this release would have made it: each earlier release (releases.json),
 * built from the repository's history, tells a story on a data dir (or database); this release, started on the same
 * data, reads it exactly as it reads the same story told to it from the start. Any derived field the newer rules read
 * and the upgrade does not fill in shows here as a read that differs.
 */

/** The previous release first (the one this test was written for), then every release named since. */
const earlier = [
  { version: releases.previous.version, commit: releases.previous.commit },
  ...Object.entries(releases.releases).map(([version, commit]) => ({ version, commit })),
];
// The first run builds each release (npm ci and a build, a minute or more on a busy machine); later runs find them built.
jest.setTimeout(15 * 60_000);

const env = { LEADCHAT_BOT_DEBOUNCE: '0s', LEADCHAT_JOB_POLL: '100ms' };
let outbox: Receiver;
const started: TestGateway[] = [];

beforeAll(async () => {
  outbox = await Receiver.start();
});

afterAll(async () => {
  for (const gw of started) {
    await gw.stop();
    removeDir(gw.dataDir);
  }
  await outbox?.close();
});

async function gateway(dataDir: string, main?: string): Promise<TestGateway> {
  const gw = await startGateway(env, dataDir, main);
  started.push(gw);
  return gw;
}

let madeHere: Record<string, unknown> | undefined;

/** The story told to this release from the start, read back: told once, compared with each upgrade. */
async function storyMadeHere(): Promise<Record<string, unknown>> {
  if (!madeHere) {
    const fresh = await gateway(tempDir('leadchat-upgrade-fresh-'));
    madeHere = await readStory(fresh, await tellStory(fresh, outbox.url));
  }
  return madeHere;
}

test.each(earlier)(
  `data made by release $version reads after the upgrade as this release makes it (${BACKEND})`,
  async ({ commit }) => {
    const main = await builtRelease(commit);
    const dataDir = tempDir('leadchat-upgrade-');
    const old = await gateway(dataDir, main);
    const story = await tellStory(old, outbox.url);
    expect(await old.stop()).toBe(0);

    const upgraded = await gateway(dataDir);
    const afterUpgrade = await readStory(upgraded, story);

    // The incident this test was written for: the six contacts who asked for a person wait for the team.
    const waiting = afterUpgrade['conversations?limit=200&needsReply=true'] as { body: { data: unknown[] } };
    expect(waiting.body.data).toHaveLength(6);
    expect(afterUpgrade).toEqual(await storyMadeHere());
  },
);

if (BACKEND === 'postgres') {
  const VERSION: string = JSON.parse(
    readFileSync(path.resolve(__dirname, '../../gateway/package.json'), 'utf8'),
  ).version;
  const [latest, latestCommit] = Object.entries(releases.releases).at(-1)!;

  const migrationsOf = async (url: string): Promise<number[]> => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: number }>('SELECT version FROM leadchat_migrations ORDER BY 1');
      return rows.map((r) => r.version);
    } finally {
      await client.end();
    }
  };

  test(`this release started on a database that processes of release ${latest} serve (a rolling upgrade) is refused, naming where they connect from, and migrates nothing under them`, async () => {
    const dataDir = tempDir('leadchat-rolling-');
    const old = await gateway(dataDir, await builtRelease(latestCommit));
    const url = old.env.LEADCHAT_DATABASE_URL!;
    const before = await migrationsOf(url);

    const refused = await runCli(['serve'], { ...old.env, LEADCHAT_PORT: String(await freePort()) });
    expect(refused.code).toBe(1);
    expect(logLines(refused.stdout + refused.stderr)).toEqual([
      expect.objectContaining({
        level: 60,
        msg: 'the gateway could not start',
        reason: expect.stringMatching(
          new RegExp(
            `^store: the database \\(schema version ${before.at(-1)}\\) is in use by other gateway processes ` +
              `\\(connections: \\d+ from 127\\.0\\.0\\.1\\); this gateway \\(leadchat-gateway ${VERSION.replaceAll('.', '\\.')}\\) ` +
              `would migrate it to schema version \\d+, which they were not written for: stop every process, then start ` +
              `the new version \\(README, "Upgrades"\\); nothing was changed$`,
          ),
        ),
      }),
    ]);
    // The old process serves on, on the schema it was written for.
    expect(await migrationsOf(url)).toEqual(before);
    expect((await request(old, 'GET', '/readyz')).status).toBe(200);

    // Once it is stopped, the new release migrates and serves.
    expect(await old.stop()).toBe(0);
    const upgraded = await gateway(dataDir);
    expect((await request(upgraded, 'GET', '/readyz')).status).toBe(200);
    expect((await migrationsOf(url)).length).toBeGreaterThan(before.length);
  });
}
