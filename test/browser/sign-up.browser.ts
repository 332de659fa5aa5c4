import {
  expect,
  expectAccessible,
  mailedLink,
  screenshot,
  STRONG_PASSWORD,
  test,
  uniqueEmail,
} from './service';

test('a dealer signs up, verifies the email from the outbox and lands on the overview', async ({
  page,
  baseURL,
}) => {
  await page.goto('/dashboard/sign-up');
  await expectAccessible(page);
  await screenshot(page, 'sign-up');
  const email = uniqueEmail();
  await page.getByLabel('Company name').fill('Bilhallen i Umeå AB');
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(STRONG_PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  // Signed in, not verified yet: the one page open until the mailed link is used.
  await expect(page).toHaveURL(/\/dashboard\/verify-email$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Verify your email' })).toBeVisible();
  await expectAccessible(page);

  const link = await mailedLink(baseURL!, email, 'verify-email');
  await page.goto(link);
  await page.getByRole('button', { name: 'Verify email' }).click();
  await expect(page).toHaveURL(/\/dashboard(\?|$)/);
  await expect(page.getByText('Bilhallen i Umeå AB').first()).toBeVisible();
  await expect(page.getByText(/pending/i).first()).toBeVisible();
  await expectAccessible(page);

  // The link works once: opened again, it says so.
  const used = await page.goto(link);
  expect(used!.status()).toBe(400);
  await expect(page.getByText('This link has expired or was already used.')).toBeVisible();
  await expectAccessible(page);
});

test('sign-in pages pass axe; a wrong password says nothing about the email; then 429', async ({
  page,
}) => {
  // A client address of this journey's own: the throttle counts only its tries.
  await page.setExtraHTTPHeaders({ 'X-Forwarded-For': '198.51.100.42' });
  await page.goto('/dashboard/sign-in');
  await expectAccessible(page);
  await page.getByLabel('Email address').fill('nobody@example.se');
  const tryPassword = async (password: string) => {
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  await tryPassword('not the password at all');
  await expect(page.getByRole('alert').or(page.locator('.error-summary')).first()).toBeVisible();
  await expectAccessible(page);

  // 5 failures a minute of one email from one address, then the 429 page.
  for (let i = 2; i <= 5; i++) {
    await tryPassword(`wrong password number ${i}`);
    // The answer is a new page: the password field comes back empty, with the same message.
    await expect(page.getByLabel('Password')).toHaveValue('');
    await expect(page.getByText('The email or password is not right.').first()).toBeVisible();
  }
  await tryPassword('wrong password number 6');
  await expect(page.getByRole('heading', { level: 1, name: 'Too many attempts' })).toBeVisible();
  await expect(page.getByText('Too many sign-in attempts.')).toBeVisible();
  await expectAccessible(page);
});
