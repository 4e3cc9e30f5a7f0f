import { ConfigError, loadConfig } from '../config.js';
import { createLogger } from '../log.js';
import { startGateway } from '../server.js';
import { boundHeapGrowth } from './heap.js';
import { buildName } from '../version.js';

/** `leadchat-gateway serve`: runs until SIGTERM/SIGINT, then drains requests, flushes the store and exits 0. */
export async function serve(): Promise<number | undefined> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`leadchat-gateway: invalid configuration: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  const log = createLogger(config.logLevel);
  const running = await startGateway(config, log);
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
  const where = `https://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${running.address.port}`;
  process.stdout.write(
    `LeadChat gateway ${buildName()} on ${running.gw.store.backend} listening on ${where} (API: ${where}/v1, data: ${config.dataDir})\n` +
      `Web console: ${where}/console\n` +
      `TLS certificate: ${running.tlsSource}\n` +
      `Admin token: ${running.adminTokenFile ?? 'from LEADCHAT_ADMIN_TOKEN'}\n`,
  );
  await stopped;
  return 0;
}
