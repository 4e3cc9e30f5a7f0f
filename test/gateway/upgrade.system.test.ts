import { BACKEND, removeDir, startGateway, tempDir, type TestGateway } from '../helpers/gateway';
import { builtRelease, releases } from '../helpers/release';
import { Receiver } from './api-support';
import { readStory, tellStory } from './upgrade-story';

/**
 * An upgrade keeps every conversation as this release would have made it: the previous release (releases.json),
 * built from the repository's history, tells a story on a data dir (or database); this release, started on the same
 * data, reads it exactly as it reads the same story told to it from the start. Any derived field the newer rules read
 * and the upgrade does not fill in shows here as a read that differs.
 */

const { previous } = releases;
// The first run builds the previous release (npm ci and a build, a minute or more on a busy machine); later runs find it built.
jest.setTimeout(15 * 60_000);

const env = { LEADCHAT_BOT_DEBOUNCE: '0s', LEADCHAT_JOB_POLL: '100ms' };
let previousMain: string;
let outbox: Receiver;
const started: TestGateway[] = [];

beforeAll(async () => {
  previousMain = await builtRelease(previous.commit);
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

test(`data made by release ${previous.version} reads after the upgrade as this release makes it (${BACKEND})`, async () => {
  const dataDir = tempDir('leadchat-upgrade-');
  const old = await gateway(dataDir, previousMain);
  const story = await tellStory(old, outbox.url);
  expect(await old.stop()).toBe(0);

  const upgraded = await gateway(dataDir);
  const afterUpgrade = await readStory(upgraded, story);

  const fresh = await gateway(tempDir('leadchat-upgrade-fresh-'));
  const madeHere = await readStory(fresh, await tellStory(fresh, outbox.url));

  // The incident this test was written for: the six contacts who asked for a person wait for the team.
  const waiting = afterUpgrade['conversations?limit=200&needsReply=true'] as { body: { data: unknown[] } };
  expect(waiting.body.data).toHaveLength(6);
  expect(afterUpgrade).toEqual(madeHere);
});
