/**
 * NestJS 12 and a few of its dependencies ship as ES modules only. The app runs them through
 * Node's require(esm); Jest's CommonJS runtime cannot, so those packages are transpiled to
 * CommonJS here (cached after the first run) instead of switching Jest to its experimental ESM mode.
 */
const ESM_ONLY = [
  '@nestjs',
  'file-type',
  'strtok3',
  'token-types',
  '@tokenizer',
  'uint8array-extras',
  '@borewit',
];

const base = {
  rootDir: __dirname,
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.(ts|js)$': [
      '<rootDir>/test/support/esm-interop.transformer.js',
      { tsconfig: '<rootDir>/tsconfig.jest.json' },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
};

/** Each file clones the run's template database and takes a Redis prefix of its own. */
const database = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};

module.exports = {
  testTimeout: 60_000,
  // In CI a run ends when its tests do: a suite whose app failed to build leaves its connections
  // open, and Jest would wait for them forever instead of reporting the failure. Locally Jest
  // still waits, and says what it waits for.
  forceExit: process.env.CI === 'true',
  projects: [
    // Unit specs need neither PostgreSQL nor Redis, so the database set-up belongs to the other
    // tiers alone (Jest runs a project's global set-up only when that project has tests to run).
    {
      ...base,
      displayName: 'unit',
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/clients/typescript/src/**/*.spec.ts'],
    },
    // Services against the real database and Redis, no HTTP.
    {
      ...base,
      ...database,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.int-spec.ts'],
    },
    // The application in the test's process, through HTTP.
    {
      ...base,
      ...database,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      // Every answer of an app under test is checked against openapi/openapi.json.
      setupFilesAfterEnv: ['<rootDir>/test/support/contract-setup.ts'],
    },
    // Faults, several processes, the document export: the compiled service in processes of its own.
    {
      ...base,
      ...database,
      displayName: 'slow',
      testMatch: ['<rootDir>/test/slow/**/*.slow-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/contract-setup.ts'],
      globalSetup: '<rootDir>/test/support/global-setup-slow.ts',
    },
  ],
};
