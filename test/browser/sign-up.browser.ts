import { expect, expectAccessible, screenshot, signUpVerified, test } from './service';

test('a dealer signs up, verifies the email from the outbox and lands on the overview', async ({
  page,
  baseURL,
}) => {
  await page.goto('/dashboard/sign-up');
  await expectAccessible(page);
  await screenshot(page, 'sign-up');
  await signUpVerified(page, baseURL!, 'Bilhallen i Umeå AB');
  await expect(page).toHaveURL(/\/dashboard(\?|$)/);
  await expect(page.getByText('Bilhallen i Umeå AB').first()).toBeVisible();
  await expect(page.getByText(/pending/i).first()).toBeVisible();
  await expectAccessible(page);
});

test('sign-in pages pass axe, and a wrong password says nothing about the email', async ({
  page,
}) => {
  await page.goto('/dashboard/sign-in');
  await expectAccessible(page);
  await page.getByLabel('Email address').fill('nobody@example.se');
  await page.getByLabel('Password').fill('not the password at all');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert').or(page.locator('.error-summary')).first()).toBeVisible();
  await expectAccessible(page);
});
