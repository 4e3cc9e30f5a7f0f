/** What the system says when no PostgreSQL answers at an address: the server is down, elsewhere, or closed to us. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Why a database named as `named` (a setting or an option, its URL without the password) could not be opened, with
 * what to check when no PostgreSQL answered at its address: the system's words alone (`connect ECONNREFUSED
 * 127.0.0.1:5432`) name neither the URL nor a way on. The server's own refusals (password authentication failed,
 * database "x" does not exist) say what is wrong by themselves.
 */
export function notOpened(named: string, url: string, err: Error): Error {
  const code = (err as NodeJS.ErrnoException).code;
  // Both addresses of a name such as localhost refused: Node says so in the errors it gathers, its own message empty.
  const said =
    err.message || ((err as Partial<AggregateError>).errors ?? []).map((e: Error) => e.message).join(', ') || code;
  if (!code || !UNREACHABLE.has(code)) return new Error(`${named}: ${said}`, { cause: err });
  const { hostname, port } = new URL(url);
  const at = `${hostname}:${port || 5432}`;
  return new Error(
    `${named}: ${said}; check that PostgreSQL runs and listens at ${at} (listen_addresses, port), that this machine may connect to it (pg_hba.conf, a firewall), and that the URL names the right host and port`,
    { cause: err },
  );
}
