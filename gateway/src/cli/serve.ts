import { ConfigError, listeningUrl, loadConfig, unknownSettingMessage, unknownSettings } from '../config.js';
import { createLogger, logProcessOutput, type Logger } from '../log.js';
import type { RunningGateway } from '../server.js';
import { boundHeapGrowth } from './heap.js';
import { gatewayCommit, gatewayVersion } from '../version.js';

/**
 * `leadchat-gateway serve`: runs until SIGTERM/SIGINT, then drains requests, flushes the store and exits 0.
 * Everything it writes is a log line: JSON when stdout is not a terminal (a log shipper reads every line), a plain
 * line for a person at one.
 */
export async function serve(): Promise<number | undefined> {
  const human = process.stdout.isTTY === true;
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      createLogger('info', human).fatal({ reason: err.message }, 'invalid configuration');
      return 1;
    }
    throw err;
  }
  const log = createLogger(config.logLevel, human);
  logProcessOutput(log);
  for (const unknown of unknownSettings())
    log.warn({ variable: unknown.name, meant: unknown.meant }, unknownSettingMessage(unknown));
  let running: RunningGateway;
  try {
    // Loaded once the configuration holds: a refused one is told in a fraction of the second the server's modules take.
    const { startGateway } = await import('../server.js');
    running = await startGateway(config, log);
  } catch (err) {
    // What stops a start (the data dir held by another gateway, a certificate missing) is the operator's to fix:
    // its message, not a stack trace.
    log.fatal({ reason: (err as Error).message }, 'the gateway could not start');
    return 1;
  }
  // After opening the store, which builds its indexes faster with the engine's default heap growth.
  boundHeapGrowth();
  // Listening for the stop signals before saying so: a supervisor may send one as soon as it reads the line.
  // A second signal ends the wait of LEADCHAT_SHUTDOWN_DELAY; the drain that follows is bounded anyway.
  const stopped = new Promise<void>((resolve) => {
    let signalled = false;
    const shutdown = (signal: string) => {
      if (!signalled) log.info({ signal, delayMs: config.shutdownDelayMs }, 'shutting down');
      signalled = true;
      running.stop().then(resolve, (err) => {
        log.error({ err }, 'shutdown failed');
        process.exitCode = 1;
        resolve();
      });
    };
    process.on('SIGTERM', shutdown);
    process.on('SIGINT', shutdown);
  });
  // `systemctl reload` (ExecReload=kill -HUP) or a certbot deploy hook: the renewed certificate at once. Node's
  // default for SIGHUP would end the process.
  process.on('SIGHUP', () => void running.reloadCertificate());
  announce(log, running, config.host, config.dataDir);
  await stopped;
  return 0;
}

/**
 * The start-up line: where the gateway listens and what it runs on, as fields. Written at every log level but
 * `silent` (like PostgreSQL's "ready to accept connections"): a supervisor and a person both wait for it.
 */
function announce(log: Logger, running: RunningGateway, host: string, dataDir: string): void {
  const url = listeningUrl(host, running.address.port);
  const level = log.level === 'silent' ? 'silent' : 'info';
  log.child({}, { level }).info(
    {
      version: gatewayVersion,
      commit: gatewayCommit,
      store: running.gw.store.backend,
      url,
      api: `${url}/v1`,
      console: `${url}/console`,
      dataDir,
      certificate: running.tlsSource,
      adminTokenFrom: running.adminTokenFile ?? 'LEADCHAT_ADMIN_TOKEN',
    },
    `LeadChat gateway listening on ${url}`,
  );
}
