/** Every test lives under test/: gateway tests talk to a real gateway process, node tests run real n8n workflows. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }] },
  testTimeout: 30000,
};
