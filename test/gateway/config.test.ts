import path from 'node:path';
import { gatewayModule } from '../helpers/gateway-modules';

type ConfigModule = typeof import('../../gateway/src/config.js', { with: { 'resolution-mode': 'import' } });

/** The settings as `serve` reads them: an empty value is unset, and a value that cannot be right stops start-up, named. */
const config = async () =>
  (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/config.js'))) as ConfigModule;

test('an empty value is the setting left unset: its default', async () => {
  const { loadConfig } = await config();
  const given = loadConfig({ LEADCHAT_PORT: '', LEADCHAT_LOG_LEVEL: '', LEADCHAT_WEBHOOK_TARGETS: '' });
  const unset = loadConfig({});
  expect([given.port, given.logLevel, given.targetPolicy]).toEqual([unset.port, unset.logLevel, unset.targetPolicy]);
});

test('the target policy takes any, public or host names; an entry that is none stops start-up, named', async () => {
  const { loadConfig } = await config();
  expect(loadConfig({ LEADCHAT_WEBHOOK_TARGETS: 'localhost, 127.0.0.1,[::1],Hooks.Example.com' }).targetPolicy).toEqual(
    {
      kind: 'allow',
      hosts: ['localhost', '127.0.0.1', '::1', 'hooks.example.com'],
    },
  );
  for (const [value, named] of [
    ['bogus_policy', 'bogus_policy'],
    ['http://hooks.example.com', 'http://hooks.example.com'],
    ['localhost,hooks.example.com/path', 'hooks.example.com/path'],
    // Commas alone: an allow-list of nothing would refuse every target.
    [', ,', ', ,'],
  ])
    expect(() => loadConfig({ LEADCHAT_WEBHOOK_TARGETS: value })).toThrow(
      `LEADCHAT_WEBHOOK_TARGETS=${JSON.stringify(value)}: "${named}" is no host name`,
    );
});

test('a refused token or database URL is named without the secret it holds', async () => {
  const { loadConfig } = await config();
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error('the settings were taken');
  };
  expect(refusal({ LEADCHAT_ADMIN_TOKEN: 'hunter2-admin' })).toBe(
    'LEADCHAT_ADMIN_TOKEN=<13 characters, not shown>: must be at least 16 characters',
  );
  expect(refusal({ LEADCHAT_METRICS_TOKEN: 'hunter2-metrics' })).toBe(
    'LEADCHAT_METRICS_TOKEN=<15 characters, not shown>: must be at least 16 characters',
  );
  // A space in the database's name: the host is named, the password is not.
  expect(refusal({ LEADCHAT_DATABASE_URL: 'postgres://leadchat:p@ss-hunter2@db.internal:5432/lead chat' })).toBe(
    'LEADCHAT_DATABASE_URL="postgres://leadchat:***@db.internal:5432/lead chat": expected postgres://user:password@host:port/database',
  );
});

test('a duration no timer keeps, or a timeout of 0, stops start-up, named', async () => {
  const { loadConfig } = await config();
  for (const [name, value, why] of [
    // Node fires a timer of more than 2^31 - 1 ms at once: the delay would end as soon as it began.
    ['LEADCHAT_SHUTDOWN_DELAY', '720h', 'must be at most 596h (24 days), the longest a timer waits'],
    ['LEADCHAT_SIGN_IN_REFUSAL_DELAY', '9999999999ms', 'must be at most 596h (24 days), the longest a timer waits'],
    ['LEADCHAT_WEBHOOK_RETRIES', '5s,1000h', '"1000h" must be at most 596h (24 days), the longest a timer waits'],
    ['LEADCHAT_WEBHOOK_TIMEOUT', '0s', 'must be more than 0: every call would fail at once'],
    ['LEADCHAT_BOT_TIMEOUT', '0ms', 'must be more than 0: every call would fail at once'],
  ])
    expect(() => loadConfig({ [name!]: value })).toThrow(`${name}=${JSON.stringify(value)}: ${why}`);
  expect(loadConfig({ LEADCHAT_SHUTDOWN_DELAY: '596h' }).shutdownDelayMs).toBe(596 * 3_600_000);
  expect(loadConfig({ LEADCHAT_WEBHOOK_RETRIES: '5s,2m' }).webhookRetryDelaysMs).toEqual([5_000, 120_000]);
});

test('a number setting takes digits alone, and its refusal says what it takes', async () => {
  const { loadConfig } = await config();
  for (const value of [' ', 'abc', '8443abc', '0x20', '1e3', '-1', '84.5', '70000'])
    expect(() => loadConfig({ LEADCHAT_PORT: value })).toThrow(
      `LEADCHAT_PORT=${JSON.stringify(value)}: expected a whole number from 0 to 65535`,
    );
  expect(() => loadConfig({ LEADCHAT_RATE_LIMIT_PER_MINUTE: '0' })).toThrow(
    'LEADCHAT_RATE_LIMIT_PER_MINUTE="0": expected a whole number from 1 to 1000000',
  );
  for (const value of [' ', '1,5', '0.001', '-1', '0x10', '2000000'])
    expect(() => loadConfig({ LEADCHAT_PRICE_SMS: value })).toThrow(
      `LEADCHAT_PRICE_SMS=${JSON.stringify(value)}: expected credits from 0 to 1000000 with at most two decimals, such as 1 or 0.25`,
    );
  const taken = loadConfig({ LEADCHAT_PORT: ' 8444 ', LEADCHAT_PRICE_SMS: '0.25', LEADCHAT_PRICE_WHATSAPP: '.5' });
  expect([taken.port, taken.prices.smsSegment, taken.prices.whatsapp]).toEqual([8444, 25, 50]);
});

test('an address setting takes only the schemes it is called with, and says which', async () => {
  const { loadConfig } = await config();
  for (const [name, value, why] of [
    // The CLI speaks HTTPS only: a plain address failed in Node's words, a bare host:port as "Invalid URL".
    ['LEADCHAT_URL', 'http://localhost:8443', 'expected an https:// address'],
    ['LEADCHAT_URL', 'localhost:8443', 'expected an https:// address'],
    ['LEADCHAT_PUBLIC_URL', 'chat.example.com', 'expected an https:// address'],
    [
      'LEADCHAT_PUBLIC_URL',
      'https://chat.example.com/?src=leadchat',
      'expected an address without a ?query or #fragment',
    ],
    ['LEADCHAT_TWILIO_API_URL', 'ftp://api.twilio.example', 'expected an http:// or https:// address'],
  ])
    expect(() => loadConfig({ [name!]: value })).toThrow(`${name}=${JSON.stringify(value)}: ${why}`);
  const taken = loadConfig({
    LEADCHAT_URL: 'https://127.0.0.1:8443',
    LEADCHAT_PUBLIC_URL: 'https://chat.example.com/leadchat/',
    LEADCHAT_TWILIO_API_URL: 'http://127.0.0.1:9999/',
  });
  expect([taken.url, taken.publicUrl, taken.twilioApiUrl]).toEqual([
    'https://127.0.0.1:8443',
    'https://chat.example.com/leadchat',
    'http://127.0.0.1:9999',
  ]);
});

test('a job lease no longer than the webhook timeout stops start-up, naming both as they were read', async () => {
  const { loadConfig } = await config();
  // The timeout raised, the lease left at its default (here given empty): both values say which to change.
  expect(() => loadConfig({ LEADCHAT_WEBHOOK_TIMEOUT: '5m', LEADCHAT_JOB_LEASE: '' })).toThrow(
    'LEADCHAT_JOB_LEASE="2m" must be longer than LEADCHAT_WEBHOOK_TIMEOUT="5m", or a slow delivery would be taken over while it runs',
  );
  expect(loadConfig({ LEADCHAT_WEBHOOK_TIMEOUT: '5m', LEADCHAT_JOB_LEASE: '6m' }).jobLeaseMs).toBe(360_000);
});

test('a token or database URL is read without the spaces and line end around it', async () => {
  const { loadConfig } = await config();
  // As a secret made from a file that ends in a newline gives them.
  const read = loadConfig({
    LEADCHAT_ADMIN_TOKEN: ' admin-token-0123456789\n',
    LEADCHAT_METRICS_TOKEN: 'metrics-token-0123456789\n',
    LEADCHAT_DATABASE_URL: 'postgres://leadchat:secret@db.internal:5432/leadchat\n',
  });
  expect([read.adminToken, read.metricsToken, read.databaseUrl]).toEqual([
    'admin-token-0123456789',
    'metrics-token-0123456789',
    'postgres://leadchat:secret@db.internal:5432/leadchat',
  ]);
});

test('a LEADCHAT_ variable that is no setting is named with the setting it most likely meant', async () => {
  const { unknownSettings } = await config();
  expect(
    unknownSettings({
      LEADCHAT_DATADIR: '/var/lib/leadchat/data',
      LEADCHAT_WEBHOOK_TIMEOUTS: '30s',
      LEADCHAT_DATABSE_URL: 'postgres://leadchat:secret@db.internal/leadchat',
      LEADCHAT_ADMIN_TOKEN_FILE: '/run/secrets/leadchat',
      LEADCHAT_TLS_CERTIFICATE: '/etc/letsencrypt/live/chat.example.com/fullchain.pem',
      leadchat_port: '8443',
      LEADCHAT_COLOUR: 'blue',
      // Settings, and the repository's own test and benchmark variables: nothing to say.
      LEADCHAT_PORT: '8443',
      LEADCHAT_TEST_CLOCK: '1',
      LEADCHAT_TEST_TIER: 'system',
      LEADCHAT_BENCH_RATE: '100',
      PATH: '/usr/bin',
    }),
  ).toEqual([
    { name: 'LEADCHAT_ADMIN_TOKEN_FILE', meant: 'LEADCHAT_ADMIN_TOKEN' },
    { name: 'LEADCHAT_COLOUR', meant: undefined },
    { name: 'LEADCHAT_DATABSE_URL', meant: 'LEADCHAT_DATABASE_URL' },
    { name: 'LEADCHAT_DATADIR', meant: 'LEADCHAT_DATA_DIR' },
    { name: 'LEADCHAT_TLS_CERTIFICATE', meant: 'LEADCHAT_TLS_CERT' },
    { name: 'LEADCHAT_WEBHOOK_TIMEOUTS', meant: 'LEADCHAT_WEBHOOK_TIMEOUT' },
    { name: 'leadchat_port', meant: 'LEADCHAT_PORT' },
  ]);
});
