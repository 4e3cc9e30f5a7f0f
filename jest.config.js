const { readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');

/**
 * Every test lives under test/. Two tiers (docs/testing.md):
 *
 * - fast (`npm test`, and jest run bare): everything on the embedded store but the console in a browser; on
 *   PostgreSQL, the store contract, what only PostgreSQL does (locks, leases, migrations, notifications, outages,
 *   several processes) and one walk through each family of the API's routes.
 * - system (`npm run test:system`, LEADCHAT_TEST_TIER=system): the heavier repeat, every API file and the console's
 *   smoke on PostgreSQL, the files named `*.system.test.ts` (the gateway's process signalled and stopped, the command
 *   line, backups, the packed package installed, the upgrade from earlier releases on both backends, a 50,000-row
 *   import), and every browser test, taking its screenshots.
 *
 * LEADCHAT_TEST_TIER=all offers every project, for picking one with --selectProjects (what `npm run test:quick`
 * does).
 */
const TESTS = path.join(__dirname, 'test');
const base = {
  // jest's Node environment, lending the tests an import of the gateway's build made once per worker.
  testEnvironment: '<rootDir>/test/helpers/gateway-environment.js',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }] },
  roots: ['<rootDir>/test'],
};
/** One PostgreSQL server for the run (each file makes its own databases on it); every gateway started runs on it. */
const onPostgres = {
  setupFiles: ['<rootDir>/test/helpers/postgres-backend.ts'],
  globalSetup: '<rootDir>/test/helpers/postgres-global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/postgres-global-teardown.ts',
};
const file = (name) => `**/${name}.test.ts`;

/** Files that run on PostgreSQL only: there is nothing for the embedded store in them. */
const postgresOnly = ['scale-out', 'migrate', 'store-contract', 'sessions-scale-out', 'api-postgres-smoke'];

/**
 * The fast tier on PostgreSQL: what behaves differently there. API files are here whole when a part of them is
 * PostgreSQL's own: the stream's notifications between processes, readiness through a database outage, the opening
 * burst shared by several processes, a conversation's replies posted in order by two processes, erasure leaving
 * nothing in the database, the search keys' backfill, the conversations' upgrade (a migration; a newer release's
 * database refused), and a campaign's changes from one version racing in transactions that run at once.
 */
const postgresFast = [
  ...postgresOnly.map(file),
  file('outage'),
  file('crash'),
  file('api-stream'),
  file('api-service'),
  file('api-opening-burst'),
  file('api-reply-order'),
  file('api-contact-erasure'),
  file('api-contact-search'),
  file('api-upgrade'),
  // Changes of one campaign from the same version, racing in concurrent transactions: one goes through.
  file('api-campaign-versions'),
  // The factory's own proof: a gateway in the test's process on each backend.
  file('gateway-factory'),
  // A new password and a sign-in with the old one taking turns on the record that holds it.
  file('new-password'),
];

/**
 * The console's tests that open a browser (they import its browser helpers) run in the system tier only, each once on
 * the embedded store taking its screenshots (sign-in and a first day on PostgreSQL too): a browser test costs a Chromium profile, a gateway and the page's own
 * waits, which the fast tier's budget cannot spend. The console's server (sessions, sign-in, its API, its assets) is
 * proven in the fast tier without one.
 */
const browserTests = readdirSync(path.join(TESTS, 'console'))
  .filter((name) => name.endsWith('.test.ts'))
  .filter((name) => /from '\.\/browser'/.test(readFileSync(path.join(TESTS, 'console', name), 'utf8')))
  .map((name) => `**/console/${name}`);

const fast = [
  {
    ...base,
    displayName: 'lowdb',
    testMatch: ['**/*.test.ts'],
    testPathIgnorePatterns: [
      `/(${postgresOnly.join('|')})\\.test\\.ts$`,
      '\\.system\\.test\\.ts$',
      ...browserTests.map((glob) => `/console/${path.basename(glob).replace(/\./g, '\\.')}$`),
    ],
  },
  { ...base, ...onPostgres, displayName: 'postgres', testMatch: postgresFast },
];

const system = [
  {
    ...base,
    ...onPostgres,
    displayName: 'postgres-system',
    // The upgrade from earlier releases reads a database they filled, as it reads a data dir in the system project.
    testMatch: [
      '**/gateway/api-*.test.ts',
      '**/gateway/upgrade.system.test.ts',
      '**/console/browser.test.ts',
      file('first-day'),
      // Every route held to hostile input, which PostgreSQL stores otherwise than the embedded store.
      file('hostile-input'),
      // The sign-in limits' rules, over the store's counters: the fast tier proves those counters on PostgreSQL
      // (store-contract) and counted by two processes (sessions-scale-out).
      '**/console/sign-in-limits.system.test.ts',
    ],
    // Already in the fast tier on PostgreSQL.
    testPathIgnorePatterns: postgresFast.map((glob) => `/${path.basename(glob).replace(/\./g, '\\.')}$`),
  },
  {
    ...base,
    // Not the backend: a system file starts PostgreSQL's server for the run if it wants a database on it.
    globalSetup: onPostgres.globalSetup,
    globalTeardown: onPostgres.globalTeardown,
    displayName: 'system',
    testMatch: ['**/*.system.test.ts'],
  },
  {
    ...base,
    displayName: 'screenshots',
    testMatch: browserTests,
    setupFiles: ['<rootDir>/test/helpers/screenshots-on.ts'],
  },
];

const TIERS = { fast, system, all: [...fast, ...system] };
const tier = process.env.LEADCHAT_TEST_TIER ?? 'fast';
if (!(tier in TIERS)) throw new Error(`LEADCHAT_TEST_TIER is "${tier}": fast, system or all`);

module.exports = {
  testTimeout: 30000,
  // Most tests wait on gateway processes and browsers, not on this process's CPU: two files at a time halve the
  // suite on a 2-core machine.
  maxWorkers: 2,
  // A worker keeps some of every file's modules: one past this much memory is replaced after its file. A new worker
  // starts jest, its modules and the gateway's build again: at 512 MB, two dozen API files took about a tenth more CPU
  // than at 1 GB, which none of them reached.
  workerIdleMemoryLimit: '1GB',
  // Once per run: Debian's Chromium (installed when missing) and one browser server the browser tests share; the
  // contract check's folder.
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  // After the run: the operations and statuses of the OpenAPI document that no test received (the fast tier runs every
  // API file: the system tier's repeat would list what only the fast tier sends), the slowest files and the tier's
  // time.
  reporters: [
    'default',
    ...(tier === 'system' ? [] : ['<rootDir>/test/helpers/contract-report.js']),
    '<rootDir>/test/helpers/slowest-report.js',
  ],
  projects: TIERS[tier],
};
