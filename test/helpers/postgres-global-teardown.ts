/** Stops the test run's PostgreSQL server; not persistent, it removes its data dir as it stops. */
export default async function teardown(): Promise<void> {
  const server = (globalThis as { leadchatPostgres?: { stop(): Promise<void> } }).leadchatPostgres;
  await server?.stop();
}
