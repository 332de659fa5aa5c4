import { defineConfig } from '@playwright/test';

/**
 * The dashboard's browser tests: Debian's Chromium (Playwright's own download cannot work here)
 * against the built service, started once by the global set-up with a database of its own.
 * Two workers share that service: each journey signs up users of its own (uniqueEmail), and a
 * journey that reaches a per-address limit names a client address of its own (X-Forwarded-For).
 */
export default defineConfig({
  testDir: '.',
  testMatch: '*.browser.ts',
  globalSetup: require.resolve('./global-setup'),
  workers: 2,
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
