import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ADMIN_TOKEN, backendEnv, tempDir, type TestGateway } from './gateway';

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
  /** When the next waiting job is due on the gateway's clock, as the job runners last heard. */
  nextDueAt(): number | undefined;
}

/** The gateway's modules, loaded once per test file (each file has its own module registry in jest). */
let modules: Promise<{
  server: ServerModule;
  clock: ClockModule;
  config: ConfigModule;
  log: LogModule;
  durations: DurationsModule;
}>;
const load = () =>
  (modules ??= (async () => ({
    server: (await import(path.join(DIST, 'server.js'))) as ServerModule,
    clock: (await import(path.join(DIST, 'clock.js'))) as ClockModule,
    config: (await import(path.join(DIST, 'config.js'))) as ConfigModule,
    log: (await import(path.join(DIST, 'log.js'))) as LogModule,
    durations: (await import(path.join(DIST, 'domain/durations.js'))) as DurationsModule,
  }))());

/** Every gateway of a file shares the module graph's clock: made once, with the file's first gateway. */
let sharedClock: ReturnType<ClockModule['manualClock']> | undefined;

/**
 * Starts a gateway in this process with a fresh data dir (or `dataDir`: on PostgreSQL a data dir stands for its
 * database, as with processes), configured by `env` as a process would be, and nothing else of this process's
 * environment.
 */
export async function startInProcess(env: Record<string, string> = {}, dataDir = tempDir()): Promise<InProcessGateway> {
  const { server, clock, config: configModule, log } = await load();
  const fullEnv: Record<string, string> = {
    LEADCHAT_PORT: '0',
    LEADCHAT_HOST: '127.0.0.1',
    LEADCHAT_DATA_DIR: dataDir,
    LEADCHAT_ADMIN_TOKEN: ADMIN_TOKEN,
    LEADCHAT_LOG_LEVEL: 'warn',
    LEADCHAT_RATE_LIMIT_PER_MINUTE: '100000',
    ...(await backendEnv(dataDir)),
    ...env,
  };
  const config = configModule.loadConfig(fullEnv);
  let out = '';
  const logger = log.createLogger(config.logLevel, { write: (line: string) => void (out += line) });
  sharedClock ??= clock.manualClock();
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
    env: { ...fullEnv, LEADCHAT_PORT: String(running.address.port) },
    engine: running.gw,
    output: () => out,
    drain: () => running.gateway.drain(),
    advance: async (by) => {
      const { durations } = await load();
      clock.advanceClock(typeof by === 'number' ? by : durations.parseDuration(by, { field: 'advance' }));
    },
    now: () => clock.clockNow(),
    nextDueAt: () => running.gateway.nextDueAt(),
    // As a process's exit code: 0 once stopped cleanly; a failure to stop fails the test.
    settle: async (horizonMs) => {
      const until = gw.now() + horizonMs;
      for (;;) {
        const ran = await gw.drain();
        const due = gw.nextDueAt();
        if (due === undefined || due > until) return;
        if (due > gw.now()) await gw.advance(due - gw.now());
        // Due now and yet nothing ran: a job another runner holds, due again when its lease ends.
        else if (ran === 0) return;
      }
    },
    // As a process's exit code: 0 once stopped cleanly; a failure to stop fails the test.
    stop: () => (stopped ??= running.stop().then(() => 0)),
  };
  return gw;
}
