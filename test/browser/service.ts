import { expect, test as base, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

/** The admin token of the service the global set-up starts (staff's credential in the journeys). */
export const BROWSER_ADMIN_TOKEN = 'browser-tests-admin-token-0123456789';

/** Every journey talks to the service the global set-up started. */
export const test = base.extend({
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their deps this way
  baseURL: async ({}, use) => {
    const url = process.env.DASHBOARD_TEST_URL;
    if (!url) throw new Error('DASHBOARD_TEST_URL is not set: run through playwright.config.ts');
    await use(url);
  },
});
export { expect };

/** 0 WCAG 2.1 A/AA violations on the page as it is now. */
export async function expectAccessible(page: Page): Promise<void> {
  const { violations } = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`)).toEqual([]);
}

/** Calls the admin API of the service under test. */
export async function adminApi<T = unknown>(
  baseURL: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${baseURL}/v1/admin${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${BROWSER_ADMIN_TOKEN}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as T };
}

/** A password the strength estimator accepts, for every journey's user. */
export const STRONG_PASSWORD = 'violet tractor harbour 42 umbrella';

let users = 0;
/** Unique across the run's workers too: each numbers its users, under its worker index. */
export const uniqueEmail = (prefix = 'owner') =>
  `${prefix}.${Date.now().toString(36)}.w${process.env.TEST_WORKER_INDEX ?? 0}.${++users}@example.se`;

/** The dashboard link (path and token) of the newest kept mail to `email`, read by staff's API. */
export async function mailedLink(baseURL: string, email: string, path: string): Promise<string> {
  const { body } = await adminApi<{ data: { text: string }[] }>(
    baseURL,
    'GET',
    `/emails?to=${encodeURIComponent(email)}&limit=1`,
  );
  const match = new RegExp(`/dashboard/${path}\\?token=[A-Za-z0-9_-]+`).exec(
    body.data[0]?.text ?? '',
  );
  if (!match) throw new Error(`No ${path} link in the newest mail to ${email}`);
  return match[0];
}

/** Signs up through the form and verifies the email from the mail outbox; ends on the overview. */
export async function signUpVerified(
  page: Page,
  baseURL: string,
  company = 'Bilhallen i Umeå AB',
  email = uniqueEmail(),
): Promise<{ email: string }> {
  await page.goto('/dashboard/sign-up');
  await page.getByLabel('Company name').fill(company);
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(STRONG_PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.goto(await mailedLink(baseURL, email, 'verify-email'));
  await page.getByRole('button', { name: 'Verify email' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  return { email };
}

/**
 * The dashboard guide's pictures (docs/images/dashboard-<name>.png), retaken when
 * UPDATE_SCREENSHOTS=1; otherwise kept with the run's output. Keys and secrets are masked.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/images' : 'test-results/screenshots';
  await page.screenshot({
    path: `${dir}/dashboard-${name}.png`,
    fullPage: true,
    mask: [page.locator('.secret, #new-key, #new-secret')],
  });
}

/**
 * A new owner (signed up, verified) whose account staff approved through the admin API, with a
 * test key staff made for it; the account id is read off the overview, as staff would ask for it.
 */
export async function approvedOwnerWithKey(
  page: Page,
  baseURL: string,
  company: string,
): Promise<{ email: string; accountId: string; key: string }> {
  const { email } = await signUpVerified(page, baseURL, company);
  await page.goto('/dashboard');
  const accountId = (await page.locator('#account-id').textContent())!.trim();
  expect((await adminApi(baseURL, 'POST', `/accounts/${accountId}/approve`)).status).toBe(200);
  const made = await adminApi<{ data: { key: string } }>(
    baseURL,
    'POST',
    `/accounts/${accountId}/keys`,
    { kind: 'test', name: 'Feed sync' },
  );
  expect(made.status).toBe(201);
  return { email, accountId, key: made.body.data.key };
}
