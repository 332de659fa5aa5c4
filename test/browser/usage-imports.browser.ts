import { aListing } from '../support/listing-builder';
import { approvedOwnerWithKey, expect, expectAccessible, screenshot, test } from './service';

/**
 * Usage and Imports journeys: an approved account's owner with a test key calls the API and
 * follows the calls, an import and a held mirror import in the dashboard (test mode, the default).
 */

/** Signs up, verifies, approves the account by the admin API and makes a test key for it. */
function api(baseURL: string, key: string) {
  return (method: string, path: string, body?: string, type = 'application/json') =>
    fetch(`${baseURL}/v1${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'Content-Type': type }),
      },
      body,
    });
}

const ndjson = (ids: string[]) =>
  ids.map((externalId) => JSON.stringify(aListing().with({ externalId }).build())).join('\n') +
  '\n';

test('a call with the test key shows on Usage, in the chart and in its table', async ({
  page,
  baseURL,
}) => {
  const { key } = await approvedOwnerWithKey(page, baseURL!, 'Usage Bil AB');
  const call = api(baseURL!, key);
  expect((await call('GET', '/me')).status).toBe(200);

  await page.getByRole('link', { name: 'Usage' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Usage' })).toBeVisible();
  // Counts are written within 5 s: reload until the call is there.
  const endpointRow = page.locator('#usage-endpoints tr', { hasText: '/v1/me' });
  await expect(async () => {
    await page.reload();
    await expect(endpointRow).toBeVisible({ timeout: 500 });
  }).toPass({ timeout: 10_000 });
  await expect(endpointRow.locator('td').nth(2)).toHaveText('1');
  await expect(page.locator('#usage-chart canvas')).toBeVisible();
  await expect(page.locator('#usage-daily')).toContainText('2xx');
  await expect(page.locator('#usage-windows')).toContainText('Feed sync');
  await expectAccessible(page);
  await screenshot(page, 'usage');

  // Filters: a key, 7 days; a number of days out of range is refused beside the field.
  const keyOption = page.locator('#key option', { hasText: 'Feed sync' });
  await page.getByLabel('Key').selectOption((await keyOption.getAttribute('value'))!);
  await page.getByLabel('Period').selectOption('7');
  await page.getByRole('button', { name: 'Show usage' }).click();
  await expect(page.locator('#usage-daily tbody tr')).toHaveCount(7);
  // The browser holds back 120 (max="90"); the page refuses it too, beside the field.
  await page.getByLabel('Or a number of days').fill('120');
  await page.getByRole('button', { name: 'Show usage' }).click();
  expect(
    await page
      .locator('#days')
      .evaluate((el) => (el as unknown as { validity: { valid: boolean } }).validity.valid),
  ).toBe(false);
  await page.goto('/dashboard/usage?days=120');
  await expect(page.locator('#days-error')).toContainText('days must be an integer from 1 to 90');
  await expectAccessible(page);
});

test('an import sent with the key is followed on the Imports page to its end', async ({
  page,
  baseURL,
}) => {
  const { key } = await approvedOwnerWithKey(page, baseURL!, 'Import Bil AB');
  const bad = JSON.stringify(aListing().with({ externalId: 'j-bad', price: -1 }).build());
  const res = await api(baseURL!, key)(
    'POST',
    '/imports',
    ndjson(['j-1', 'j-2']) + bad + '\n',
    'application/x-ndjson',
  );
  expect(res.status).toBe(202);
  const id = ((await res.json()) as { data: { id: string } }).data.id;

  await page.getByRole('link', { name: 'Imports' }).click();
  await expectAccessible(page);
  await page.getByRole('link', { name: id.slice(0, 8) }).click();
  // The progress region polls by itself (htmx, every 2 s) until the import ends.
  await expect(page.locator('#import-progress')).toContainText('succeeded with errors', {
    timeout: 30_000,
  });
  await expect(page.locator('#import-progress')).not.toHaveAttribute('hx-trigger', /every/);
  await expect(page.locator('#import-results')).toContainText('j-bad');
  await expect(page.locator('#import-results')).toContainText('price');
  await expectAccessible(page);
  await page.getByRole('link', { name: 'All imports' }).click();
  await expect(page.locator('#imports')).toContainText('succeeded with errors');
});

test('a held mirror import shows its planned removals and is confirmed from the page', async ({
  page,
  baseURL,
}) => {
  const { key } = await approvedOwnerWithKey(page, baseURL!, 'Mirror Bil AB');
  const call = api(baseURL!, key);
  for (const externalId of ['m-keep', 'm-gone-1', 'm-gone-2']) {
    const put = await call(
      'PUT',
      `/listings/by-external-id/${externalId}`,
      JSON.stringify(aListing().build()),
    );
    expect(put.status).toBe(201);
  }
  const res = await call(
    'POST',
    '/imports?mode=mirror&maxRemovals=1',
    ndjson(['m-keep']),
    'application/x-ndjson',
  );
  expect(res.status).toBe(202);
  const id = ((await res.json()) as { data: { id: string } }).data.id;

  await page.goto(`/dashboard/imports/${id}`);
  await expect(page.locator('#import-progress')).toContainText('held', { timeout: 30_000 });
  await page.reload();
  await expect(page.locator('#planned-removals')).toContainText('m-gone-1');
  await expect(page.locator('#planned-removals')).toContainText('m-gone-2');
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Confirm import' }).click();
  await expect(page.getByText('The import is confirmed')).toBeVisible();
  await expect(page.locator('#import-progress')).toContainText(/succeeded/, { timeout: 30_000 });
  await page.reload();
  await expect(page.locator('#import-progress')).toContainText('Removed');
  await expectAccessible(page);
  const after = await call('GET', `/imports/${id}`);
  const body = (await after.json()) as { data: { status: string; counts: { removed: number } } };
  expect(body.data).toMatchObject({ status: 'succeeded', counts: { removed: 2 } });
});
