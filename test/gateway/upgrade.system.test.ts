import { BACKEND, removeDir, startGateway, tempDir, type TestGateway } from '../helpers/gateway';
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
