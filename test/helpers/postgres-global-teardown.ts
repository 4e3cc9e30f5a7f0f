/** Stops the test run's PostgreSQL server, which removes everything it wrote as it stops. */
export default async function teardown(): Promise<void> {
  const server = (globalThis as { leadchatPostgres?: { stop(): Promise<void> } }).leadchatPostgres;
  await server?.stop();
}
