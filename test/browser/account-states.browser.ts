import {
  adminApi,
  approvedOwnerWithKey,
  expect,
  expectAccessible,
  STRONG_PASSWORD,
  test,
} from './service';

/**
 * The states the other journeys do not reach, each checked once with axe: live mode, the
 * confirm- and change-password pages, a suspended account's banner (with the test banner) on the
 * 403 page, and the 404 page of an unknown dashboard path.
 */
test('live mode, the password pages, the suspended banner and the error pages pass axe', async ({
  page,
  baseURL,
}) => {
  const { accountId } = await approvedOwnerWithKey(page, baseURL!, 'Lägena i Kiruna AB');

  const missing = await page.goto('/dashboard/no-such-page');
  expect(missing!.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  await expectAccessible(page);

  // Live mode: no test banner; live keys are an owner's, with a recent password.
  await page.goto('/dashboard/keys');
  await page.getByRole('button', { name: 'Switch to live mode' }).click();
  await expect(page.getByRole('heading', { level: 2, name: 'Live keys' })).toBeVisible();
  await expect(page.locator('.banner-test')).toHaveCount(0);
  await expectAccessible(page);

  // The confirm-password step (asked for when the password is older than 10 minutes).
  await page.goto('/dashboard/confirm-password?next=%2Fdashboard%2Fkeys');
  await expect(
    page.getByRole('heading', { level: 1, name: 'Confirm your password' }),
  ).toBeVisible();
  await expectAccessible(page);
  await page.getByLabel('Password').fill(STRONG_PASSWORD);
  await page.getByRole('button', { name: 'Confirm password' }).click();
  await expect(page).toHaveURL(/\/dashboard\/keys$/);
  await page.goto('/dashboard/password');
  await expect(page.getByRole('heading', { level: 1, name: 'Change your password' })).toBeVisible();
  await expectAccessible(page);

  // Suspended by staff: the banner on every page, beside the test banner; changes are refused.
  expect((await adminApi(baseURL!, 'POST', `/accounts/${accountId}/suspend`)).status).toBe(200);
  await page.getByRole('button', { name: 'Switch to test mode' }).click();
  await expect(page.getByRole('button', { name: 'Switch to live mode' })).toBeVisible();
  const refused = await page.goto('/dashboard/webhooks/new');
  expect(refused!.status()).toBe(403);
  await expect(page.getByRole('heading', { level: 1, name: 'Not allowed' })).toBeVisible();
  await expect(page.getByText('not while it is suspended')).toBeVisible();
  await expect(page.locator('.banner-suspended')).toContainText('SUSPENDED');
  await expect(page.locator('.banner-test')).toBeVisible();
  await expectAccessible(page);
});
