import { advanceClock, removeDir, request, startGateway, untilIdle, type TestGateway } from '../helpers/gateway';

/**
 * A job that plans its next run (the hourly housekeeping, an opening waiting for its window, a follow-up's timer) is
 * not failing: its attempts start over each time, so it runs for as long as it plans to, past the queue's limit of
 * attempts for a job that fails.
 */
jest.setTimeout(120_000);
let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ LEADCHAT_TEST_CLOCK: '1' });
});
afterAll(async () => {
  await gw.stop();
  removeDir(gw.dataDir);
});

const jobs = async (status: string) =>
  (
    await request(gw, 'GET', '/admin/v1/jobs', {
      headers: { authorization: `Bearer ${gw.adminToken}` },
      query: { status },
    })
  ).body.data as Array<{ kind: string; attempts: number; runAt: string }>;

/** Moves the clock an hour and waits until the housekeeping has run and planned its next hour. */
async function nextHour(): Promise<void> {
  const before = (await jobs('pending')).find((j) => j.kind === 'housekeeping')!.runAt;
  await advanceClock(gw, '1h');
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    const planned = (await jobs('pending')).find((j) => j.kind === 'housekeeping');
    if (planned && planned.runAt > before) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`the housekeeping did not plan its next hour: dead jobs ${JSON.stringify(await jobs('dead'))}`);
}

test('the hourly housekeeping still runs after 30 hours (more runs than the 25 attempts a failing job gets)', async () => {
  await untilIdle(gw);
  for (let hour = 0; hour < 30; hour++) await nextHour();
  expect(await jobs('dead')).toEqual([]);
  expect(await jobs('pending')).toEqual([expect.objectContaining({ kind: 'housekeeping', attempts: 0 })]);
});
