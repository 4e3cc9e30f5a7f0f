import { clockOf, request, type Reply, type TestGateway } from './gateway';

/** A job as the operator's API lists it. */
export interface ListedJob {
  id: string;
  kind: string;
  accountId: string | null;
  data: any;
  status: 'pending' | 'running' | 'dead';
  runAt: string | null;
  attempts: number;
  lastError: string | null;
}

/** Every job of one status, through the operator's API. */
export async function jobsWithStatus(gw: TestGateway, status: ListedJob['status']): Promise<ListedJob[]> {
  const all: ListedJob[] = [];
  for (let cursor: string | null = null; ; ) {
    const res: Reply = await request(gw, 'GET', '/admin/v1/jobs', {
      headers: { authorization: `Bearer ${gw.adminToken}` },
      query: { status, limit: '200', ...(cursor ? { cursor } : {}) },
    });
    if (res.status !== 200) throw new Error(`listing jobs failed: ${res.status} ${res.text}`);
    all.push(...res.body.data);
    if (!(cursor = res.body.nextCursor)) return all;
  }
}

/** The provider webhook entries the gateway took and has not processed yet (jobs `inbound`, waiting or running). */
export async function inboundJobs(gw: TestGateway): Promise<ListedJob[]> {
  const [pending, running] = await Promise.all([jobsWithStatus(gw, 'pending'), jobsWithStatus(gw, 'running')]);
  return [...pending, ...running].filter((job) => job.kind === 'inbound');
}

/**
 * Waits until the gateway has processed every provider webhook entry it took (a contact's later messages wait in
 * their turn, and each comes to the queue as the one before it ends, so none is left once no `inbound` job is).
 * What a test reads then is what the gateway made of them. Calm twice in a row, as untilIdle.
 */
export async function untilProcessed(gw: TestGateway, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let calm = 0; calm < 2; ) {
    const now = clockOf(gw);
    // A status report that came before the message it names waits for later by its own plan (jobs/inbound.ts):
    // it is not being processed. One that failed (the store away) is, until it is done.
    const busy = (await inboundJobs(gw)).some(
      (job) => job.status === 'running' || job.lastError !== null || Date.parse(job.runAt!) <= now,
    );
    calm = busy ? 0 : calm + 1;
    if (busy && Date.now() > deadline)
      throw new Error(`provider webhook entries were still being processed after ${timeoutMs} ms`);
    if (calm < 2) await new Promise((r) => setTimeout(r, 25));
  }
}

/** The provider's POST, then, when it was taken (2xx), the gateway's processing of what it took. */
export async function processed<T extends Pick<Reply, 'status'>>(gw: TestGateway, posted: Promise<T>): Promise<T> {
  const res = await posted;
  if (res.status >= 200 && res.status < 300) await untilProcessed(gw);
  return res;
}
