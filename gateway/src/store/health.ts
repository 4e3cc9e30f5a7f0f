/** Where the store's health is told: the gateway's logger, or process warnings for a store opened on its own. */
export interface HealthLog {
  /** For what needs the operator at once; a warning where the log has no such level. */
  error?(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/** Within this long, a second line about failures of one class is left out (and counted in the next one). */
export const QUIET_MS = 10_000;

/**
 * The failure classes an operator meets when the store goes away, by the code the error (or an error it wraps)
 * carries: network errors, PostgreSQL's SQLSTATE for a server shutting down or starting, a full or failing disk, a
 * data dir the gateway's user may no longer change (its owner or mode changed, an immutable attribute set).
 */
const BY_CODE: Record<string, string> = {
  ECONNREFUSED: 'connection_refused',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  ETIMEDOUT: 'timeout',
  EHOSTUNREACH: 'host_unreachable',
  ENETUNREACH: 'host_unreachable',
  ENOTFOUND: 'host_not_found',
  EAI_AGAIN: 'host_not_found',
  '57P01': 'admin_shutdown',
  '57P02': 'crash_shutdown',
  '57P03': 'cannot_connect_now',
  '53300': 'too_many_connections',
  '25006': 'read_only',
  ENOSPC: 'disk_full',
  EDQUOT: 'disk_full',
  EIO: 'disk_io_error',
  EROFS: 'read_only_filesystem',
  EACCES: 'permission_denied',
  EPERM: 'permission_denied',
};

/**
 * What the operator does about a failure class the gateway cannot wait out by itself as it waits out a restarting
 * database: told on the line that says the store is away.
 */
const REMEDY: Record<string, string> = {
  disk_full: "free space on the data dir's file system",
  read_only_filesystem: "mount the data dir's file system read-write again",
  permission_denied:
    "let the gateway's user write the data dir and every file in it again (owner, mode, an immutable or append-only attribute: chattr -i -a)",
};

/** node-postgres reports a lost connection and its own timeouts without a code. */
const BY_MESSAGE: Array<[RegExp, string]> = [
  [/Connection terminated|connection ended|not queryable|Client was closed/i, 'connection_terminated'],
  [/timeout|timed out|did not answer within/i, 'timeout'],
];

/** The known class of a store failure, from the error or the errors it wraps; undefined for any other. */
export function failureClass(err: unknown): string | undefined {
  const chain = causes(err);
  for (const at of chain) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string' && BY_CODE[code]) return BY_CODE[code];
  }
  for (const at of chain) {
    const message = at instanceof Error ? at.message : '';
    for (const [pattern, name] of BY_MESSAGE) if (pattern.test(message)) return name;
  }
  return undefined;
}

/** The error and those it wraps, outermost first (a few levels: a chain is never long). */
function causes(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let at = err; at !== null && at !== undefined && chain.length < 5; at = (at as { cause?: unknown }).cause)
    chain.push(at);
  return chain;
}

/** The innermost message: the database's or the system's own words, without our wrappings. */
function reasonOf(err: unknown): string {
  const innermost = causes(err).at(-1);
  return innermost instanceof Error ? innermost.message : String(innermost);
}

/**
 * The store's health as this process sees it: up, or away since when, for which failure class, and how many
 * requests were refused meanwhile. The backends tell it of each failure that means the store is out of reach and of
 * the answers after it; `/readyz`, `/metrics` (`leadchat_store_up`) and the logs read it.
 *
 * An outage logs like this: one warning when the store goes away (its failure class and the reason, no stack trace),
 * at most one line per failure class per 10 s about what failed meanwhile (requests refused, jobs that could not run),
 * and one info line when it is back (how long it was away, how many requests were refused). A failure of no known
 * class keeps its stack trace: it is worth a developer's eye.
 */
export class StoreHealth {
  private away: { since: number; failure: string } | undefined;
  private refusals = 0;
  /** Set once only a restart brings the store back: why. */
  private lost: string | undefined;
  /** By failure class: when its last line was written, and how many were left out since. */
  private readonly lines = new Map<string, { at: number; left: number }>();

  constructor(
    private readonly log: HealthLog,
    private readonly now: () => number = Date.now,
  ) {}

  get up(): boolean {
    return this.away === undefined;
  }

  /** The store answered: if it was away, say that it is back. Called on every answer: costs a check when up. */
  answered(): void {
    // A store that needs a restart is not back, whatever answers on its way down.
    if (this.away === undefined || this.lost !== undefined) return;
    const { since, failure } = this.away;
    this.away = undefined;
    this.lines.clear();
    this.log.info({ failure, awayMs: this.now() - since, refused: this.refusals }, 'the store is available again');
    this.refusals = 0;
  }

  /** A failure that means the store is out of reach: the first one says it is away. */
  failed(err: unknown): void {
    if (this.away !== undefined) return;
    const failure = failureClass(err);
    const at = this.now();
    this.away = { since: at, failure: failure ?? 'unknown' };
    this.refusals = 0;
    this.lines.set(this.away.failure, { at, left: 0 });
    const remedy = failure && REMEDY[failure] ? { remedy: REMEDY[failure] } : {};
    this.log.warn(
      { failure: this.away.failure, reason: reasonOf(err), ...remedy, ...(failure ? {} : { err }) },
      'the store is unavailable: what needs it is refused (503) until it is back',
    );
  }

  /**
   * The store can no longer be trusted by this process (the embedded store's journal in a state it cannot know): a
   * restart recovers it from disk, and nothing short of one does. Said once, at level 50; `/healthz` then answers 503
   * with `reason`, so that a supervisor restarts the process.
   */
  restartNeeded(err: unknown): void {
    this.failed(err);
    if (this.lost !== undefined) return;
    this.lost = err instanceof Error ? err.message : String(err);
    const fields = { failure: failureClass(err) ?? 'unknown', reason: reasonOf(err) };
    const message =
      'the store cannot recover without a restart: /healthz answers 503 so that a supervisor restarts the gateway; nothing acknowledged is lost';
    if (this.log.error) this.log.error(fields, message);
    else this.log.warn(fields, message);
  }

  /** Why only a restart brings the store back, in the store's words (restartNeeded), or undefined. */
  get restartReason(): string | undefined {
    return this.lost;
  }

  /** A request answered 503 for want of the store: counted for the line that says it is back. */
  refused(): void {
    this.refusals += 1;
  }

  /**
   * Logs work that failed for want of the store (a request refused, a job put off): at most one line per failure
   * class per QUIET_MS, saying how many were left out before it; with its stack only when its class is unknown.
   */
  report(err: unknown, fields: object, message: string): void {
    const failure = failureClass(err);
    const key = failure ?? 'unknown';
    const at = this.now();
    const last = this.lines.get(key);
    if (last && at - last.at < QUIET_MS) {
      last.left += 1;
      return;
    }
    this.lines.set(key, { at, left: 0 });
    const left = last?.left ? { leftOut: last.left } : {};
    this.log.warn({ ...fields, failure: key, reason: reasonOf(err), ...left, ...(failure ? {} : { err }) }, message);
  }
}

/** For a store opened without the gateway's logger (a command, a test): its warnings as process warnings. */
export const processWarnings: HealthLog = {
  error: (fields, message) => process.emitWarning(`store: ${message} ${JSON.stringify(fields)}`),
  warn: (fields, message) => process.emitWarning(`store: ${message} ${JSON.stringify(fields)}`),
  info: () => undefined,
};
