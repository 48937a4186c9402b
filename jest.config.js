// Three tiers (docs/development.md, "Tests"): unit tests beside the code (src/**/*.spec.ts,
// local/**/*.spec.ts); integration tests of each table's owner against PostgreSQL, without the
// application (test/integration/**/*.int-spec.ts); end-to-end tests that boot the real AppModule
// against PostgreSQL (test/**/*.e2e-spec.ts). A fourth, `system`, holds what needs more than Node.js
// (test/system/**/*.system-spec.ts: a backup restored with pg_dump and pg_restore). TypeScript is compiled by swc with legacy decorators
// and decorator metadata, as Nest needs.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

const common = {
  // jose ships ES modules only; swc turns it into CommonJS for Jest.
  transform: { '^.+\\.(t|j)s$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(jose)/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  testEnvironment: 'node',
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/dist-local/', '<rootDir>/dist-bench/'],
};

/** @type {import('jest').Config} */
module.exports = {
  maxWorkers: 2,
  testTimeout: 30_000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      // eslint/: the project's own lint rules.
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/local/**/*.spec.ts', '<rootDir>/eslint/**/*.spec.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.int-spec.ts'],
      // The same files as e2e's: Jest runs a setup file once however many projects name it, so a run
      // of both tiers shares one PostgreSQL server and one migrated template.
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      // Only the tiers that use the database need the PostgreSQL server.
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      ...common,
      // Tests that need tools beyond Node.js (PostgreSQL's pg_dump and pg_restore): not in
      // `npm test`, which must pass on a machine with only Node.js; `npm run test:system`, in .ci/run.
      displayName: 'system',
      testMatch: ['<rootDir>/test/system/**/*.system-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
