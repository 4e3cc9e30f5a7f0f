import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';

/**
 * The only reader of process.env. Every setting is validated here; a bad value stops start-up with a message
 * naming the variable.
 */
const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');
// Digits only: Number() would read " " as 0 (LEADCHAT_PORT=" " listening on a random port, a price of " " free),
// and "0x20" or "1e3" as numbers nobody wrote.
const int = (min: number, max: number) => {
  const allowed = `expected a whole number from ${min} to ${max}`;
  return z
    .string()
    .trim()
    .regex(/^\d{1,15}$/, allowed)
    .transform(Number)
    .pipe(z.number().min(min, allowed).max(max, allowed));
};
const PRICE_ALLOWED = 'expected credits from 0 to 1000000 with at most two decimals, such as 1 or 0.25';
const price = z
  .string()
  .trim()
  .regex(/^(?=\.?\d)\d{0,7}(\.\d{1,2})?$/, PRICE_ALLOWED)
  .transform(Number)
  .pipe(z.number().max(1_000_000, PRICE_ALLOWED));
/** The longest a timer waits: Node fires a longer one at once (after a TimeoutOverflowWarning). */
const MAX_TIMER_MS = 2 ** 31 - 1;
const duration = z
  .string()
  .regex(/^\d+(ms|s|m|h)$/, 'expected a duration such as 500ms, 30s, 5m or 2h')
  .transform((v) => {
    const [, n, unit] = /^(\d+)(ms|s|m|h)$/.exec(v)!;
    return Number(n) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit as 'ms' | 's' | 'm' | 'h'];
  })
  .pipe(z.number().max(MAX_TIMER_MS, 'must be at most 596h (24 days), the longest a timer waits'));
/** A time given to a remote side to answer: 0 would not mean "no limit" but fail every call at once. */
const timeout = duration.pipe(z.number().min(1, 'must be more than 0: every call would fail at once'));

// z.url() takes any scheme: "localhost:8443" is a URL of scheme "localhost:".
const webAddress = z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// address' });
const httpsAddress = z.url({ protocol: /^https$/, error: 'expected an https:// address' });

// A token arrives in an Authorization header, whose spaces and line ends around it no client can send: one copied
// with them (a secret made from a file that ends in a newline) would refuse every request that carries it.
const token = z.string().trim().min(16, 'must be at least 16 characters');

export const settings = {
  LEADCHAT_HOST: {
    // An IPv6 address is often written as a URL has it, in brackets, which the system's listen does not take.
    schema: z
      .string()
      .min(1)
      .transform((v) => v.replace(/^\[(.*)\]$/, '$1')),
    default: '0.0.0.0',
    doc: 'Address to listen on',
  },
  LEADCHAT_PORT: { schema: int(0, 65535), default: '8443', doc: 'HTTPS port (plain HTTP on it is refused)' },
  LEADCHAT_DATA_DIR: { schema: z.string().min(1), default: './data', doc: 'Store, media, certificate and admin token' },
  LEADCHAT_DATABASE_URL: {
    schema: z
      .string()
      .trim()
      .regex(/^postgres(ql)?:\/\/\S+$/, 'expected postgres://user:password@host:port/database')
      .optional(),
    default: undefined,
    doc: 'PostgreSQL database shared by any number of gateway processes; unset: the embedded store in the data dir',
  },
  LEADCHAT_TLS_CERT: {
    schema: z.string().optional(),
    default: undefined,
    doc: 'PEM certificate file; unset: a self-signed one is generated into the data dir',
  },
  LEADCHAT_TLS_KEY: {
    schema: z.string().optional(),
    default: undefined,
    doc: 'PEM private key file, with LEADCHAT_TLS_CERT',
  },
  LEADCHAT_TRUST_PROXY: {
    schema: flag,
    default: '0',
    doc: 'Behind a TLS-terminating proxy: trust X-Forwarded-Proto/For (requests not forwarded as https are refused)',
  },
  LEADCHAT_ADMIN_TOKEN: {
    schema: token.optional(),
    default: undefined,
    doc: 'Operator token for /admin/v1; unset: generated once into <dataDir>/admin-token',
  },
  LEADCHAT_METRICS_TOKEN: {
    schema: token.optional(),
    default: undefined,
    doc: 'A token that opens GET /metrics only (for Prometheus), besides the admin token',
  },
  LEADCHAT_WARM_UP: {
    schema: flag,
    default: '1',
    doc: "Before the port opens, run an incoming message's path (rolled back on PostgreSQL), so that the first requests are answered as fast as later ones; 0 opens the port sooner",
  },
  LEADCHAT_SHUTDOWN_DELAY: {
    schema: duration,
    default: '0s',
    doc: 'After SIGTERM, how long to keep serving with /readyz answering 503 before draining, so a load balancer stops sending first (a second signal ends the wait)',
  },
  LEADCHAT_RATE_LIMIT_PER_MINUTE: { schema: int(1, 1_000_000), default: '120', doc: 'Requests per minute per API key' },
  LEADCHAT_CONSOLE_RATE_LIMIT_PER_MINUTE: {
    schema: int(1, 1_000_000),
    default: '600',
    doc: "Requests per minute per web console session: its own budget, so the console never spends the API key's",
  },
  LEADCHAT_SIGN_IN_RATE_LIMIT_PER_MINUTE: {
    schema: int(1, 1_000_000),
    default: '30',
    doc: 'Console sign-in attempts per minute per client address (an IPv6 address by its /64), right or wrong',
  },
  LEADCHAT_SIGN_IN_REFUSAL_DELAY: {
    schema: duration,
    default: '1s',
    doc: 'How long a refused console sign-in (429) waits before it is answered, so a client that asks again at once cannot flood the gateway with refusals',
  },
  LEADCHAT_MAX_MEDIA_BYTES: {
    schema: int(1, 100 * 1024 * 1024),
    default: String(10 * 1024 * 1024),
    doc: 'Largest media file kept: embedded (base64, decoded bytes) or read from Twilio or WhatsApp',
  },
  LEADCHAT_WEBHOOK_TIMEOUT: { schema: timeout, default: '15s', doc: 'Time allowed to a webhook receiver to answer' },
  LEADCHAT_WEBHOOK_RETRIES: {
    schema: z.string().transform((v, ctx) => parseSchedule(v, ctx)),
    default: '5s,30s,2m,10m,30m,1h,3h,6h',
    doc: 'Delays before each retry of a failed delivery; their count bounds the attempts',
  },
  LEADCHAT_CACHE_DOCUMENTS: {
    schema: int(0, 10_000_000),
    default: '10000',
    doc: 'Embedded store: documents kept in memory besides those in use; the rest are read back from disk when needed',
  },
  LEADCHAT_JOB_LEASE: {
    schema: duration,
    default: '2m',
    doc: 'How long a claimed job is reserved to its process: a job whose process died runs again after it',
  },
  LEADCHAT_JOB_POLL: {
    schema: duration.pipe(z.number().min(10, 'must be at least 10ms')),
    default: '1s',
    doc: 'How often each process also looks for due jobs; a committed job wakes the runners of every process at once',
  },
  LEADCHAT_INBOUND_CONCURRENCY: {
    schema: int(1, 256),
    default: '16',
    doc: "Provider messages each process takes in at once (each reading its file and its sender's profile), in a queue of their own: openings, deliveries and bot replies never wait behind them",
  },
  LEADCHAT_WEBHOOK_TARGETS: {
    schema: z.string().min(1).transform(parseTargets),
    default: 'any',
    doc: 'The target policy for every URL called for a tenant: `any`, `public` (public internet addresses only) or a comma-separated allow-list of host names',
  },
  LEADCHAT_TEST_CLOCK: {
    schema: flag,
    default: '0',
    doc: "Lets the operator move the gateway's clock forward (POST /admin/v1/clock), for tests and demonstrations: never in production",
  },
  LEADCHAT_TEST_FULL_DISK: {
    schema: z.string().min(1).optional(),
    default: undefined,
    doc: "Embedded store, for tests where no small file system can be mounted, nor a file's owner or attributes stop root: while the file this names exists, the store's writes fail as on a full disk (ENOSPC), or with the error code the file holds (EACCES, EPERM, EROFS, EIO) as the system fails them. Never in production",
  },
  LEADCHAT_LOG_LEVEL: {
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    doc: 'Log level',
  },
  LEADCHAT_PUBLIC_URL: {
    // Every link is this address with a path appended: a query or a fragment would end up in the middle of them.
    schema: httpsAddress.refine((v) => !/[?#]/.test(v), 'expected an address without a ?query or #fragment').optional(),
    default: undefined,
    doc: 'The address users and providers reach this gateway at (https://…): every link the gateway makes starts with it, status callbacks are requested there and webhook signatures are checked against it; unset: the address the gateway listens on',
  },
  LEADCHAT_BOT_DEBOUNCE: {
    schema: duration,
    default: '2s',
    doc: "How long the bot waits after a contact's message for more before it answers them all at once",
  },
  LEADCHAT_BOT_TIMEOUT: {
    schema: timeout,
    default: '20s',
    doc: 'Time allowed to an OpenAI-compatible endpoint to answer; after it the FAQ bot answers',
  },
  LEADCHAT_PRICE_BOT_REPLY: { schema: price, default: '1', doc: 'Credits a sub-account pays per bot reply' },
  LEADCHAT_PRICE_SMS: {
    schema: price,
    default: '1',
    doc: 'Credits a sub-account pays per SMS segment sent (160 GSM-7 or 70 Unicode characters; 153 and 67 per segment in longer ones)',
  },
  LEADCHAT_PRICE_WHATSAPP: { schema: price, default: '1', doc: 'Credits a sub-account pays per WhatsApp message sent' },
  LEADCHAT_PRICE_MESSENGER: {
    schema: price,
    default: '1',
    doc: 'Credits a sub-account pays per Messenger message sent',
  },
  LEADCHAT_PRICE_INSTAGRAM: {
    schema: price,
    default: '1',
    doc: 'Credits a sub-account pays per Instagram message sent',
  },
  LEADCHAT_TWILIO_API_URL: {
    schema: webAddress,
    default: 'https://api.twilio.com',
    doc: "Twilio's REST API (a stand-in for tests)",
  },
  LEADCHAT_WHATSAPP_API_URL: {
    schema: webAddress,
    default: 'https://graph.facebook.com/v23.0',
    doc: "The WhatsApp Cloud API's Graph API, with its version (a stand-in for tests)",
  },
  LEADCHAT_MESSENGER_API_URL: {
    schema: webAddress,
    default: 'https://graph.facebook.com/v23.0',
    doc: "Messenger's Graph API (Send API, profiles), with its version (a stand-in for tests)",
  },
  LEADCHAT_INSTAGRAM_API_URL: {
    schema: webAddress,
    default: 'https://graph.facebook.com/v23.0',
    doc: "Instagram messaging's Graph API, with its version (a stand-in for tests)",
  },
  LEADCHAT_URL: {
    schema: httpsAddress.optional(),
    default: undefined,
    doc: "The CLI's gateway address; unset: the one LEADCHAT_HOST and LEADCHAT_PORT name (localhost for every interface)",
  },
  LEADCHAT_CA_FILE: {
    schema: z.string().optional(),
    default: undefined,
    doc: "A CA certificate (PEM) the CLI trusts for the gateway's certificate, beside the system's CAs and the gateway's own certificate",
  },
} as const;

export type TargetPolicy = { kind: 'any' } | { kind: 'public' } | { kind: 'allow'; hosts: string[] };

/** A host name (labels of letters, digits and hyphens) or an IP address, as an allow-list names a target. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * `any`, `public` or an allow-list. An entry that is no host name (a typo of a policy, a URL given for a host) would
 * refuse every target without a word: it stops start-up, named.
 */
function parseTargets(v: string, ctx: z.RefinementCtx): TargetPolicy {
  if (v === 'any' || v === 'public') return { kind: v };
  const hosts = v
    .split(',')
    .map((h) =>
      h
        .trim()
        .toLowerCase()
        .replace(/^\[|\]$/g, ''),
    )
    .filter(Boolean);
  // Commas alone would be an allow-list of nothing: every target refused, as silently as a typo would.
  const wrong = hosts.length === 0 ? v : hosts.find((h) => !HOST_NAME.test(h) && !isIP(h));
  if (wrong !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `"${wrong.slice(0, 60)}" is no host name: give any, public, or host names separated by commas (localhost,hooks.example.com)`,
    });
    return z.NEVER;
  }
  return { kind: 'allow', hosts };
}

function parseSchedule(v: string, ctx: z.RefinementCtx): number[] {
  const delays: number[] = [];
  for (const part of v.split(',').map((p) => p.trim())) {
    const parsed = duration.safeParse(part);
    if (!parsed.success) {
      const written = /^\d+(ms|s|m|h)$/.test(part);
      const why = written ? parsed.error.issues[0]?.message : 'is not a duration such as 30s or 5m';
      ctx.addIssue({ code: 'custom', message: `"${part}" ${why}` });
      return z.NEVER;
    }
    delays.push(parsed.data);
  }
  if (delays.length > 20) ctx.addIssue({ code: 'custom', message: 'at most 20 retries' });
  return delays;
}

type Settings = typeof settings;
type Values = { [K in keyof Settings]: z.output<Settings[K]['schema']> };

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl?: string;
  tlsCert?: string;
  tlsKey?: string;
  trustProxy: boolean;
  /** Whether the path of an incoming message runs before the port opens (server.ts). */
  warmUp: boolean;
  testClock: boolean;
  /** See LEADCHAT_TEST_FULL_DISK. */
  testFullDisk?: string;
  adminToken?: string;
  metricsToken?: string;
  shutdownDelayMs: number;
  rateLimitPerMinute: number;
  consoleRateLimitPerMinute: number;
  signInRateLimitPerMinute: number;
  signInRefusalDelayMs: number;
  maxMediaBytes: number;
  webhookTimeoutMs: number;
  webhookRetryDelaysMs: number[];
  targetPolicy: TargetPolicy;
  jobLeaseMs: number;
  jobPollMs: number;
  inboundConcurrency: number;
  cacheDocuments: number;
  logLevel: Values['LEADCHAT_LOG_LEVEL'];
  url: string;
  /** The CLI's extra CA certificate file. */
  caFile?: string;
  publicUrl?: string;
  botDebounceMs: number;
  botTimeoutMs: number;
  /** Prices in hundredths of a credit. */
  prices: { botReply: number; smsSegment: number; whatsapp: number; messenger: number; instagram: number };
  twilioApiUrl: string;
  whatsappApiUrl: string;
  messengerApiUrl: string;
  instagramApiUrl: string;
}

export class ConfigError extends Error {}

/** Listening on every interface names no address to call: the machine itself is what it serves. */
const EVERY_INTERFACE = new Set(['0.0.0.0', '::', '[::]']);

/** The address of a gateway listening on `host` and `port`, as this machine calls it (an IPv6 address in brackets). */
export function listeningUrl(host: string, port: number): string {
  const name = EVERY_INTERFACE.has(host)
    ? 'localhost'
    : host.includes(':') && !host.startsWith('[')
      ? `[${host}]`
      : host;
  return `https://${name}:${port}`;
}

/** Settings whose value is a secret: a refusal names them without repeating it, as the log never holds one. */
const SECRET = new Set(['LEADCHAT_ADMIN_TOKEN', 'LEADCHAT_METRICS_TOKEN']);

/** A database URL as a message may show it: without its password. */
export const withoutPassword = (url: string): string => url.replace(/^([^:/]*:\/\/[^:/@]*:).*@/, '$1***@');

/** A refused setting as the refusal names it: a token by its length, a database URL without its password. */
function named(name: string, raw: string | undefined): string {
  if (raw === undefined) return name;
  if (SECRET.has(name)) return `${name}=<${raw.length} characters, not shown>`;
  const value = name === 'LEADCHAT_DATABASE_URL' ? withoutPassword(raw) : raw;
  return `${name}=${JSON.stringify(value)}`;
}

export interface UnknownSetting {
  name: string;
  /** The setting it most likely meant, if one is close. */
  meant?: string;
}

/** The sentence that says so, naming the variable and never its value. */
export const unknownSettingMessage = ({ name, meant }: UnknownSetting): string =>
  `${name} is no setting of the gateway and is ignored${meant ? `: did you mean ${meant}?` : ''}`;

/**
 * LEADCHAT_* variables in `env` that name no setting, each with the setting it most likely meant. A misspelt name
 * (LEADCHAT_DATADIR, LEADCHAT_WEBHOOK_TIMEOUTS, LEADCHAT_DATABSE_URL) is otherwise ignored without a word: the
 * gateway runs on the default, its data in another folder or on the embedded store. The repository's own test and
 * benchmark variables are left out. Names only: a value may be a secret.
 */
export function unknownSettings(env: Record<string, string | undefined> = process.env): UnknownSetting[] {
  const known = Object.keys(settings);
  return Object.keys(env)
    .filter((name) => /^LEADCHAT_/i.test(name) && !(name in settings) && !/^LEADCHAT_(TEST|BENCH)_/.test(name))
    .sort()
    .map((name) => ({ name, meant: closestSetting(name, known) }));
}

function closestSetting(name: string, known: string[]): string | undefined {
  const upper = name.toUpperCase();
  if (upper in settings) return upper;
  let best: { name: string; distance: number } | undefined;
  for (const setting of known) {
    // LEADCHAT_ADMIN_TOKEN_FILE, LEADCHAT_TLS_CERTIFICATE: a setting with more written after it.
    const distance = upper.startsWith(setting) || setting.startsWith(upper) ? 0 : editDistance(upper, setting);
    if (!best || distance < best.distance || (distance === best.distance && setting.length > best.name.length))
      best = { name: setting, distance };
  }
  const tail = upper.length - 'LEADCHAT_'.length;
  return best && best.distance <= Math.max(2, Math.floor(tail / 4)) ? best.name : undefined;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/**
 * The settings `env` holds, checked. `adminApi`: whether the process serves the admin API or calls it, which on a
 * database needs the token every process shares; a command that needs only the store (`migrate`, or `backup` and
 * `restore`, which point a database's operator at its own tools) runs with the gateway's environment, its
 * LEADCHAT_DATABASE_URL exported, and no admin token.
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  { adminApi = true }: { adminApi?: boolean } = {},
): Config {
  const v = {} as Record<string, unknown>;
  for (const [name, setting] of Object.entries(settings)) {
    // An empty value is no value: the setting's default, as when it is unset.
    const raw = env[name] || setting.default;
    const parsed = (setting.schema as z.ZodType).safeParse(raw);
    if (!parsed.success) {
      throw new ConfigError(`${named(name, raw)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    }
    v[name] = parsed.data;
  }
  const values = v as Values;
  if (!values.LEADCHAT_TLS_CERT !== !values.LEADCHAT_TLS_KEY) {
    throw new ConfigError('LEADCHAT_TLS_CERT and LEADCHAT_TLS_KEY must be set together');
  }
  if (adminApi && values.LEADCHAT_DATABASE_URL && !values.LEADCHAT_ADMIN_TOKEN) {
    throw new ConfigError(
      'LEADCHAT_ADMIN_TOKEN must be set with LEADCHAT_DATABASE_URL: every gateway process on the database needs the same token',
    );
  }
  if (values.LEADCHAT_JOB_LEASE <= values.LEADCHAT_WEBHOOK_TIMEOUT) {
    throw new ConfigError(
      // Each as it was read (an empty value is the default), since either one may be the one to change.
      `LEADCHAT_JOB_LEASE=${JSON.stringify(env.LEADCHAT_JOB_LEASE || settings.LEADCHAT_JOB_LEASE.default)} must be longer than LEADCHAT_WEBHOOK_TIMEOUT=${JSON.stringify(env.LEADCHAT_WEBHOOK_TIMEOUT || settings.LEADCHAT_WEBHOOK_TIMEOUT.default)}, or a slow delivery would be taken over while it runs`,
    );
  }
  return {
    host: values.LEADCHAT_HOST,
    port: values.LEADCHAT_PORT,
    dataDir: path.resolve(values.LEADCHAT_DATA_DIR),
    databaseUrl: values.LEADCHAT_DATABASE_URL,
    tlsCert: values.LEADCHAT_TLS_CERT,
    tlsKey: values.LEADCHAT_TLS_KEY,
    trustProxy: values.LEADCHAT_TRUST_PROXY,
    warmUp: values.LEADCHAT_WARM_UP,
    testClock: values.LEADCHAT_TEST_CLOCK,
    testFullDisk: values.LEADCHAT_TEST_FULL_DISK,
    adminToken: values.LEADCHAT_ADMIN_TOKEN,
    metricsToken: values.LEADCHAT_METRICS_TOKEN,
    shutdownDelayMs: values.LEADCHAT_SHUTDOWN_DELAY,
    rateLimitPerMinute: values.LEADCHAT_RATE_LIMIT_PER_MINUTE,
    consoleRateLimitPerMinute: values.LEADCHAT_CONSOLE_RATE_LIMIT_PER_MINUTE,
    signInRateLimitPerMinute: values.LEADCHAT_SIGN_IN_RATE_LIMIT_PER_MINUTE,
    signInRefusalDelayMs: values.LEADCHAT_SIGN_IN_REFUSAL_DELAY,
    maxMediaBytes: values.LEADCHAT_MAX_MEDIA_BYTES,
    webhookTimeoutMs: values.LEADCHAT_WEBHOOK_TIMEOUT,
    webhookRetryDelaysMs: values.LEADCHAT_WEBHOOK_RETRIES,
    targetPolicy: values.LEADCHAT_WEBHOOK_TARGETS,
    jobLeaseMs: values.LEADCHAT_JOB_LEASE,
    jobPollMs: values.LEADCHAT_JOB_POLL,
    inboundConcurrency: values.LEADCHAT_INBOUND_CONCURRENCY,
    cacheDocuments: values.LEADCHAT_CACHE_DOCUMENTS,
    logLevel: values.LEADCHAT_LOG_LEVEL,
    url: values.LEADCHAT_URL ?? listeningUrl(values.LEADCHAT_HOST, values.LEADCHAT_PORT),
    caFile: values.LEADCHAT_CA_FILE,
    publicUrl: values.LEADCHAT_PUBLIC_URL?.replace(/\/+$/, ''),
    botDebounceMs: values.LEADCHAT_BOT_DEBOUNCE,
    botTimeoutMs: values.LEADCHAT_BOT_TIMEOUT,
    prices: {
      botReply: Math.round(values.LEADCHAT_PRICE_BOT_REPLY * 100),
      smsSegment: Math.round(values.LEADCHAT_PRICE_SMS * 100),
      whatsapp: Math.round(values.LEADCHAT_PRICE_WHATSAPP * 100),
      messenger: Math.round(values.LEADCHAT_PRICE_MESSENGER * 100),
      instagram: Math.round(values.LEADCHAT_PRICE_INSTAGRAM * 100),
    },
    twilioApiUrl: values.LEADCHAT_TWILIO_API_URL.replace(/\/+$/, ''),
    whatsappApiUrl: values.LEADCHAT_WHATSAPP_API_URL.replace(/\/+$/, ''),
    messengerApiUrl: values.LEADCHAT_MESSENGER_API_URL.replace(/\/+$/, ''),
    instagramApiUrl: values.LEADCHAT_INSTAGRAM_API_URL.replace(/\/+$/, ''),
  };
}
