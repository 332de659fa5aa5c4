import type { Page } from '@playwright/test';
import { adminApi, expect, expectAccessible, screenshot, signUpVerified, test } from './service';

interface AccessRequestRow {
  id: string;
  accountId: string;
  legalName: string;
}

/** Sends the access request through the form (axe on the form); answers the request's legal name. */
async function requestAccess(page: Page, legalName: string): Promise<void> {
  await page.getByRole('link', { name: 'Request API access' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'API access' })).toBeVisible();
  await expectAccessible(page);
  await page.getByLabel('Legal name').fill(legalName);
  await page.getByLabel('Organisationsnummer').fill('556677-8899');
  await page.getByLabel('Website').fill('https://bilhallen.example.se');
  await page
    .getByLabel('What you will integrate')
    .fill('Our dealer system publishes used cars nightly.');
  await page.getByLabel('Expected number of listings').selectOption('101-1000');
  await page.getByLabel('I accept the API terms').check();
  await screenshot(page, 'access-request');
  await page.getByRole('button', { name: 'Send request' }).click();
  await expect(page.getByText('Your access request is sent')).toBeVisible();
  await expect(page.getByText('Pending').first()).toBeVisible();
  await expectAccessible(page);
}

/** Staff approve the request named `legalName` through the admin API; answers its account id. */
async function approveByAdmin(baseURL: string, legalName: string): Promise<string> {
  const list = await adminApi<{ data: AccessRequestRow[] }>(
    baseURL,
    'GET',
    '/access-requests?status=pending&limit=100',
  );
  const request = list.body.data.find((r) => r.legalName === legalName);
  if (!request) throw new Error(`No pending request of ${legalName}`);
  const approved = await adminApi(baseURL, 'POST', `/access-requests/${request.id}/approve`);
  expect(approved.status).toBe(200);
  return request.accountId;
}

/** The account's keys as staff see them. */
async function keysOf(baseURL: string, accountId: string) {
  const res = await adminApi<{ data: { id: string; kind: string; name: string }[] }>(
    baseURL,
    'GET',
    `/accounts/${accountId}/keys`,
  );
  return res.body.data;
}

async function toTestMode(page: Page): Promise<void> {
  const toTest = page.getByRole('button', { name: 'Switch to test mode' });
  if (await toTest.isVisible()) await toTest.click();
  await expect(page.getByRole('button', { name: 'Switch to live mode' })).toBeVisible();
}

const me = (baseURL: string, key: string) =>
  fetch(`${baseURL}/v1/me`, { headers: { Authorization: `Bearer ${key}` } });

test('request access, approval mailed, a test key shown once, used, listed, revoked', async ({
  page,
  baseURL,
}) => {
  const legalName = `Bilhallen ${Date.now().toString(36)} AB`;
  const { email } = await signUpVerified(page, baseURL!, legalName);
  await requestAccess(page, legalName);
  const accountId = await approveByAdmin(baseURL!, legalName);

  const mail = await adminApi<{ data: { subject: string }[] }>(
    baseURL!,
    'GET',
    `/emails?to=${encodeURIComponent(email)}&limit=1`,
  );
  expect(mail.body.data[0].subject).toBe('Your Listings Service API access is approved');

  await page.goto('/dashboard');
  await expectAccessible(page);
  await screenshot(page, 'overview');
  await toTestMode(page);
  await page
    .getByRole('navigation', { name: 'Dashboard' })
    .getByRole('link', { name: 'Keys' })
    .click();
  await expect(page.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();
  await expectAccessible(page);
  await page.getByLabel('Name', { exact: true }).fill('Nightly sync');
  await page.getByRole('button', { name: 'Create key' }).click();
  const shown = page.locator('#new-key');
  await expect(shown).toBeVisible();
  const key = (await shown.textContent())!.trim();
  expect(key).toMatch(/^svc_test_/);
  await expectAccessible(page);
  await screenshot(page, 'key-created');

  // A reload resubmits the same form: no key shown, no second key made.
  await page.reload();
  await expect(page.getByText('This form was already used')).toBeVisible();
  expect(await page.content()).not.toContain(key);
  expect(await keysOf(baseURL!, accountId)).toHaveLength(1);

  const first = await me(baseURL!, key);
  expect(first.status).toBe(200);

  // "Last used" appears once the service has recorded the use.
  await expect(async () => {
    await page.goto('/dashboard/keys');
    await expect(page.getByRole('row', { name: /Nightly sync/ })).not.toContainText('Never');
  }).toPass({ timeout: 30_000 });
  await expectAccessible(page);
  await screenshot(page, 'keys');

  // The call shows on Usage, for this key: GET /v1/me (counts are written every 2 s).
  const revoke = page.getByRole('link', { name: 'Revoke Nightly sync' });
  const keyId = /\/dashboard\/keys\/([0-9a-f-]{36})\/revoke$/.exec(
    (await revoke.getAttribute('href'))!,
  )![1];
  const meRow = page.locator('#usage-endpoints tbody tr', { hasText: '/v1/me' });
  await expect(async () => {
    await page.goto(`/dashboard/usage?key=${keyId}`);
    await expect(meRow).toBeVisible({ timeout: 500 });
  }).toPass({ timeout: 10_000 });
  await expect(page.getByRole('main')).toContainText('key Nightly sync (');
  await expect(meRow.locator('td').nth(0)).toHaveText('GET');
  expect(Number(await meRow.locator('td').nth(2).textContent())).toBeGreaterThanOrEqual(1);

  await page.goto('/dashboard/keys');
  await revoke.click();
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Revoke key' }).click();
  await expect(page.getByText('The key is revoked')).toBeVisible();
  const revokedAt = Date.now();
  await expect(async () => {
    expect((await me(baseURL!, key)).status).toBe(401);
  }).toPass({ timeout: 5_000, intervals: [250] });
  expect(Date.now() - revokedAt).toBeLessThan(5_000);
  await expect(page.getByRole('row', { name: /Nightly sync/ })).toContainText('Revoked');
});

test('keyboard only: a test key is created with Tab and Enter', async ({ page, baseURL }) => {
  const legalName = `Tangent ${Date.now().toString(36)} AB`;
  await signUpVerified(page, baseURL!, legalName);
  await requestAccess(page, legalName);
  const accountId = await approveByAdmin(baseURL!, legalName);
  await page.goto('/dashboard/keys');
  await toTestMode(page);
  await page.goto('/dashboard/keys');

  // Tab until the name field has focus, type, then Enter submits the form.
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    if ((await page.evaluate('document.activeElement && document.activeElement.id')) === 'name')
      break;
  }
  await expect(page.locator('#name')).toBeFocused();
  await page.keyboard.type('Keyboard key');
  await page.keyboard.press('Enter');
  await expect(page.locator('#new-key')).toBeVisible();
  await expectAccessible(page);
  const keys = await keysOf(baseURL!, accountId);
  expect(keys.map((k) => k.name)).toEqual(['Keyboard key']);
});
