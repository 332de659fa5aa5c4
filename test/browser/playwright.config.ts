import { defineConfig } from '@playwright/test';

/**
 * The dashboard's browser tests: Debian's Chromium (Playwright's own download cannot work here)
 * against the built service, started once by the global set-up with a database of its own.
 * One worker: the journeys share that service, and the machine has two cores.
 */
export default defineConfig({
  testDir: '.',
  testMatch: '*.browser.ts',
  globalSetup: require.resolve('./global-setup'),
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  forbidOnly: true,
  reporter: process.env.CI === 'true' ? 'line' : 'list',
  outputDir: '../../test-results/browser',
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
    trace: 'retain-on-failure',
  },
});
