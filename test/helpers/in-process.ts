import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ADMIN_TOKEN, backendEnv, closeConnections, freePort, removeDir, tempDir, type TestGateway } from './gateway';
import { gatewayModule } from './gateway-modules';

type ServerModule = typeof import('../../gateway/src/server.js', { with: { 'resolution-mode': 'import' } });
type ClockModule = typeof import('../../gateway/src/clock.js', { with: { 'resolution-mode': 'import' } });
type ConfigModule = typeof import('../../gateway/src/config.js', { with: { 'resolution-mode': 'import' } });
type LogModule = typeof import('../../gateway/src/log.js', { with: { 'resolution-mode': 'import' } });
type DurationsModule = typeof import('../../gateway/src/domain/durations.js', {
  with: { 'resolution-mode': 'import' }
});
type Engine = import('../../gateway/src/engine/ports/providers.js', { with: { 'resolution-mode': 'import' } }).Engine;

const DIST = path.resolve(__dirname, '../../gateway/dist');

/**
 * A gateway served from this jest worker: the same HTTPS front socket, application and job runners as the
 * `leadchat-gateway serve` process (both are made by createGateway), on a manual clock that stands still until the
 * test moves it. What a test reads of it, it reads over HTTPS as of a process; `drain` and `advance` act directly.
 */
export interface InProcessGateway extends TestGateway {
  /** The engine's context: its config, store and providers. */
  engine: Engine;
  /** Runs every job due now on the gateway's clock until none is due or running; answers how many ran. */
  drain(): Promise<number>;
  /** Moves the clock forward by `by` ("90s", "1d", "23h59m") or a number of ms: the runners wake to what is due. */
  advance(by: string | number): Promise<void>;
  /**
   * Runs what the gateway would do within `horizonMs` of its clock: the jobs due now, then the clock moved to each
   * next due time within the horizon and its jobs run (a debounce, a retry), until none is due before the horizon.
   */
  settle(horizonMs: number): Promise<void>;
  /** Epoch ms on the gateway's clock. */
  now(): number;
  /** A job running or being claimed. */
  working(): boolean;
  /** When the next job is due on the gateway's clock (a running one's when its lease ends), as its store says. */
  nextDueAt(): Promise<number | undefined>;
}

/** The gateway's modules this helper calls (loaded once per jest worker: gateway-modules.ts). */
let modules: Promise<{
  server: ServerModule;
  clock: ClockModule;
  config: ConfigModule;
  log: LogModule;
  durations: DurationsModule;
}>;
const load = () =>
  (modules ??= (async () => ({
    server: (await gatewayModule(path.join(DIST, 'server.js'))) as ServerModule,
    clock: (await gatewayModule(path.join(DIST, 'clock.js'))) as ClockModule,
    config: (await gatewayModule(path.join(DIST, 'config.js'))) as ConfigModule,
    log: (await gatewayModule(path.join(DIST, 'log.js'))) as LogModule,
    durations: (await gatewayModule(path.join(DIST, 'domain/durations.js'))) as DurationsModule,
  }))());

/**
 * Every gateway of a file shares the module graph's clock: made with the file's first gateway, held until its last
 * stops. The next file's first gateway makes its own.
 */
let sharedClock: ReturnType<ClockModule['manualClock']> | undefined;
let sharedKind: InProcessOptions['clock'];

export interface InProcessOptions {
  /**
   * `manual` (the default): the clock stands still until the test moves it. `system`: it runs with the system's
   * time, and moves forward as the test says too: for a file that reads the order of times the gateway wrote at
   * different moments without a step of the test between them. A file's gateways all run on its first one's.
   */
  clock?: 'manual' | 'system';
}

/** The in-process gateways not stopped yet: time moves for all of them at once. */
const live = new Set<InProcessGateway>();
// Read by the tests' environment after the file: one still running would hold its clock into the next file.
(globalThis as { gatewaysRunning?: () => number }).gatewaysRunning = () => live.size;

/** Epoch ms on the clock of this process's gateways; undefined before the first starts. */
export const gatewayNow = (): number | undefined => sharedClock?.now();

/**
 * One step of time for this process's gateways, as a wait would have given them: when none has a job running or due
 * now, the clock moves to the next job due at or before `until` (epoch ms on their clock), whose runner wakes to it.
 * Answers whether the clock moved; when it did not, what a test waits for hangs on something other than time (a job
 * running, an answer on its way), which only waiting gives.
 */
export async function step(until: number): Promise<boolean> {
  const now = sharedClock?.now();
  if (now === undefined || [...live].some((gw) => gw.working())) return false;
  const due = Math.min(...(await Promise.all([...live].map(async (gw) => (await gw.nextDueAt()) ?? Infinity))));
  if (due <= now || due > until || [...live].some((gw) => gw.working())) return false;
  const { clock } = await load();
  clock.advanceClock(due - now);
  return true;
}

/**
 * Starts a gateway in this process with a fresh data dir (or `dataDir`: on PostgreSQL a data dir stands for its
 * database, as with processes), configured by `env` as a process would be, and nothing else of this process's
 * environment.
 */
export async function startInProcess(
  env: Record<string, string> = {},
  dataDir = tempDir(),
  options: InProcessOptions = {},
): Promise<InProcessGateway> {
  // A free port may be taken by another process before the gateway binds it: another port is tried then.
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(env, dataDir, options.clock ?? 'manual');
    } catch (err) {
      if (attempt === 3 || env.LEADCHAT_PORT !== undefined || !String(err).includes('EADDRINUSE')) throw err;
    }
  }
}

async function launch(
  env: Record<string, string>,
  dataDir: string,
  kind: NonNullable<InProcessOptions['clock']>,
): Promise<InProcessGateway> {
  if (sharedKind !== undefined && sharedKind !== kind)
    throw new Error(`The gateways of this file run on a ${sharedKind} clock, not a ${kind} one`);
  const { server, clock, config: configModule, log } = await load();
  // The gateway writes its own address into links and documents: it is told its port, as a process is.
  const fullEnv: Record<string, string> = {
    LEADCHAT_PORT: String(await freePort()),
    LEADCHAT_HOST: '127.0.0.1',
    LEADCHAT_DATA_DIR: dataDir,
    LEADCHAT_ADMIN_TOKEN: ADMIN_TOKEN,
    LEADCHAT_LOG_LEVEL: 'warn',
    // Each gateway of the suite would pay for it; api-warm-up.test.ts runs it.
    LEADCHAT_WARM_UP: '0',
    LEADCHAT_RATE_LIMIT_PER_MINUTE: '100000',
    // A file's console session makes hundreds of requests (the manual clock never ends a window): the tests of the
    // console's budget set their own.
    LEADCHAT_CONSOLE_RATE_LIMIT_PER_MINUTE: '100000',
    ...(await backendEnv(dataDir)),
    ...env,
  };
  const config = configModule.loadConfig(fullEnv);
  let out = '';
  const logger = log.createLogger(config.logLevel, false, { write: (line: string) => void (out += line) });
  sharedClock ??= kind === 'manual' ? clock.manualClock() : clock.systemClock();
  sharedKind = kind;
  const running = await server.startGateway(config, logger, sharedClock);
  const url = `https://127.0.0.1:${running.address.port}`;
  const ca = fullEnv.LEADCHAT_TLS_CERT
    ? readFileSync(fullEnv.LEADCHAT_TLS_CERT, 'utf8')
    : readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8');
  let stopped: Promise<number | null> | undefined;
  const gw: InProcessGateway = {
    url,
    apiBase: `${url}/v1`,
    dataDir,
    adminToken: fullEnv.LEADCHAT_ADMIN_TOKEN!,
    ca,
    env: fullEnv,
    engine: running.gw,
    output: () => out,
    drain: () => running.gateway.drain(),
    advance: async (by) => {
      const { durations } = await load();
      clock.advanceClock(typeof by === 'number' ? by : durations.parseDuration(by, { field: 'advance' }));
    },
    now: () => clock.clockNow(),
    working: () => running.gateway.working(),
    nextDueAt: () => running.gateway.nextDueAt(),
    settle: async (horizonMs) => {
      const until = gw.now() + horizonMs;
      for (;;) {
        const ran = await gw.drain();
        const due = await gw.nextDueAt();
        if (due === undefined || due > until) return;
        if (due > gw.now()) await gw.advance(due - gw.now());
        // Due now and yet nothing ran: a job another runner holds, due again when its lease ends.
        else if (ran === 0) return;
      }
    },
    // As a process's exit code: 0 once stopped cleanly; a failure to stop fails the test.
    stop: () => {
      live.delete(gw);
      closeConnections(gw.url);
      return (stopped ??= running.stop().then(() => 0));
    },
  };
  live.add(gw);
  return gw;
}

/**
 * A test file's in-process gateways, which its tests stop and start again on their data dirs (a restart midway, a
 * clean stop before the files are read), and what else they open (`closing`: receivers): after the file's tests, each
 * of those is closed, then each gateway stopped and its data dir removed. `gateway` starts one under the file's `env`
 * and `more`, on `dataDir` (a new one unless given).
 */
export function fileGateways(env: Record<string, string>) {
  const started: InProcessGateway[] = [];
  const closing: Array<{ close(): Promise<unknown> }> = [];
  afterAll(async () => {
    await Promise.all(closing.map((c) => c.close()));
    for (const gw of started) {
      await gw.stop();
      removeDir(gw.dataDir);
    }
  });
  const gateway = async (dataDir = tempDir(), more: Record<string, string> = {}): Promise<InProcessGateway> => {
    const gw = await startInProcess({ ...env, ...more }, dataDir);
    started.push(gw);
    return gw;
  };
  return { gateway, closing };
}
