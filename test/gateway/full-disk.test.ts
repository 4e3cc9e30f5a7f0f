import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, unlinkSync, writeSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import {
  createAccount,
  keepAliveClient,
  removeDir,
  request,
  startGateway,
  tempDir,
  type KeepAliveReply,
  type TestGateway,
} from '../helpers/gateway';
import { logLines } from '../helpers/log-lines';

/**
 * The embedded store's disk filling up under a running gateway is an outage like any other: /readyz and
 * `leadchat_store_up` say so within seconds, the log says it once when it begins and once when it ends, writes
 * succeed again within seconds of space being freed, and nothing acknowledged is lost.
 *
 * The disk is a small tmpfs where the tests may mount one (as root); elsewhere the store's own fault layer
 * (LEADCHAT_TEST_FULL_DISK) fails its writes as a full disk does. One of the two always runs.
 */
jest.setTimeout(120_000);

interface SmallDisk {
  kind: string;
  dataDir: string;
  env: Record<string, string>;
  fill(): void;
  free(): void;
  release(): void;
}

/** A 32 MB tmpfs holding the data dir, filled by a file beside it; undefined where mounting is not allowed. */
function tmpfs(): SmallDisk | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const root = tempDir('leadchat-full-disk-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=32m', 'tmpfs', root], { stdio: 'ignore' });
  } catch {
    removeDir(root);
    return undefined;
  }
  const filler = path.join(root, 'filler');
  return {
    kind: 'a full tmpfs',
    dataDir: path.join(root, 'data'),
    env: {},
    fill() {
      const fd = openSync(filler, 'w');
      try {
        // Large blocks, then small ones: every block the file system has left.
        for (const size of [1 << 20, 4096]) {
          const block = Buffer.alloc(size);
          for (;;) {
            try {
              writeSync(fd, block);
            } catch (err) {
              if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
              throw err;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free: () => unlinkSync(filler),
    release() {
      execFileSync('umount', [root]);
      removeDir(root);
    },
  };
}

/** The store's fault layer: while the flag file exists, its writes fail with ENOSPC. */
function faultLayer(): SmallDisk {
  const root = tempDir('leadchat-full-disk-');
  const flag = path.join(root, 'disk-is-full');
  mkdirSync(path.join(root, 'data'));
  return {
    kind: 'the fault layer',
    dataDir: path.join(root, 'data'),
    env: { LEADCHAT_TEST_FULL_DISK: flag },
    fill: () => writeFileSync(flag, ''),
    free: () => unlinkSync(flag),
    release: () => removeDir(root),
  };
}

const disk = tmpfs() ?? faultLayer();
afterAll(() => disk.release());

async function storeUp(gw: TestGateway): Promise<number> {
  const res = await request(gw, 'GET', '/metrics', { headers: { authorization: `Bearer ${gw.adminToken}` } });
  expect(res.status).toBe(200);
  const family = parsePrometheusTextFormat(res.text).find((f) => f.name === 'leadchat_store_up');
  return Number(family?.metrics[0]?.value);
}

const readiness = async (gw: TestGateway) => (await request(gw, 'GET', '/readyz')).status;

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - started;
}

interface Write {
  phone: string;
  reply: KeepAliveReply;
}

test(`on ${disk.kind}: /readyz 503 and leadchat_store_up 0 within 5 s, one line when it begins and one when it ends, writes back within seconds of space freed, nothing acknowledged lost`, async () => {
  const gw = await startGateway({ LEADCHAT_LOG_LEVEL: 'info', ...disk.env }, disk.dataDir);
  try {
    const account = await createAccount(gw);
    const writer = keepAliveClient(gw, account.apiKey, 4);
    const writes: Write[] = [];
    let n = 0;
    let load = true;
    // Four clients creating contacts one after another, and a balancer asking /readyz, all through the outage.
    const clients = Array.from({ length: 4 }, async () => {
      while (load) {
        const phone = `+1415557${String(n++).padStart(4, '0')}`;
        writes.push({ phone, reply: await writer.call('POST', '/v1/contacts', { phone, firstName: 'Disk' }) });
      }
    });
    const probes: number[] = [];
    const balancer = (async () => {
      while (load) {
        probes.push(await readiness(gw));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const refused = () => writes.filter((w) => w.reply.status === 503).length;

    await until('writes before the disk fills', () => writes.length >= 20, 10_000);
    expect(await readiness(gw)).toBe(200);
    disk.fill();
    await until('a write refused', () => refused() > 0, 10_000);
    expect(await until('/readyz 503', async () => (await readiness(gw)) === 503, 5_000)).toBeLessThan(5_000);
    expect(await storeUp(gw)).toBe(0);
    // The outage goes on under load a while: hundreds of refused writes, the disk looked at again and again.
    const before = refused();
    await until('more writes refused', () => refused() >= before + 300, 30_000);
    expect(await readiness(gw)).toBe(503);
    expect(await storeUp(gw)).toBe(0);

    disk.free();
    const freed = writes.length;
    expect(
      await until('a write kept again', () => writes.slice(freed).some((w) => w.reply.status === 201), 5_000),
    ).toBeLessThan(5_000);
    expect(await until('/readyz 200', async () => (await readiness(gw)) === 200, 5_000)).toBeLessThan(5_000);
    expect(await storeUp(gw)).toBe(1);
    // The balancer asks on its own beat: it has seen the gateway ready again before the load stops.
    await until('the balancer sees 200', () => probes.at(-1) === 200, 5_000);
    load = false;
    await Promise.all([...clients, balancer]);
    writer.close();

    // Refused writes say so; none was a 500.
    for (const { reply } of writes) {
      if (reply.status === 503) expect(reply.body.error.code).toBe('STORE_UNAVAILABLE');
      else expect(reply.status).toBe(201);
    }
    // The balancer saw one outage: ready, then unavailable throughout, then ready again.
    const shape = probes
      .map(String)
      .join(',')
      .replace(/(\d+)(,\1)+/g, '$1');
    expect(shape).toBe('200,503,200');

    expect(await gw.stop()).toBe(0);
    // Every line is JSON (logLines fails on any other); the outage is two of them.
    const lines = logLines(gw.output());
    expect(lines.filter((l) => /store is (unavailable|available again)/.test(l.msg))).toEqual([
      expect.objectContaining({
        level: 40,
        failure: 'disk_full',
        msg: expect.stringMatching(/^the store is unavailable/),
      }),
      expect.objectContaining({ level: 30, failure: 'disk_full', msg: 'the store is available again' }),
    ]);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);

    // Nothing acknowledged is lost: every contact answered 201 is there after a restart.
    const again = await startGateway({}, disk.dataDir);
    const reader = keepAliveClient(again, account.apiKey, 8);
    try {
      const kept = writes.filter((w) => w.reply.status === 201);
      const found = await Promise.all(
        kept.map((w) => reader.call('GET', `/v1/contacts?phoneNumber=${encodeURIComponent(w.phone)}`)),
      );
      expect(found.map((f) => f.body.id)).toEqual(kept.map((w) => w.reply.body.id));
    } finally {
      reader.close();
      expect(await again.stop()).toBe(0);
    }
  } finally {
    await gw.kill();
  }
});
