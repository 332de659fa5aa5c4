import type { Browser, Page } from '@playwright/test';
import { aListing } from '../support/listing-builder';
import {
  adminApi,
  approvedOwnerWithKey,
  expect,
  expectAccessible,
  mailedLink,
  STRONG_PASSWORD,
  signUpVerified,
  test,
  uniqueEmail,
} from './service';

/** A test listing made through the API with the account's test key. */
async function aTestListing(baseURL: string, key: string): Promise<string> {
  const res = await fetch(`${baseURL}/v1/listings`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(aListing().build()),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

/** Signs up an invited email in a context of its own (sign-up joins the inviting account). */
async function signUpInvited(browser: Browser, baseURL: string, email: string): Promise<Page> {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  // An invited email joins the inviting account: the company name is not asked for.
  await signUpVerified(page, baseURL, '', email);
  return page;
}

test('a sandbox action on a test listing shows its result and the queued event', async ({
  page,
  baseURL,
}) => {
  const { key } = await approvedOwnerWithKey(page, baseURL!, 'Sandlådan AB');
  await page.goto('/dashboard/members');
  await expectAccessible(page);
  await aTestListing(baseURL!, key);
  await page.getByRole('link', { name: 'Sandbox' }).click();
  await expect(page.getByRole('heading', { name: 'Sandbox', level: 1 })).toBeVisible();
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Publish' }).click();
  const status = page.locator('#sandbox-result[role="status"]');
  await expect(status).toContainText('is now ACTIVE');
  await expect(status).toContainText('listing.updated');
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Favourite' }).click();
  await expect(status).toContainText('listing.favorited');
  await page.getByRole('link', { name: 'Security log' }).click();
  await expect(page.getByRole('heading', { name: 'Security log', level: 1 })).toBeVisible();
  await expect(page.getByRole('cell', { name: 'API key created' })).toBeVisible();
  await expectAccessible(page);
});

test('a viewer cannot change anything: no POST buttons, and a direct POST is refused', async ({
  page,
  baseURL,
  browser,
}) => {
  await signUpVerified(page, baseURL!, 'Visningen AB');
  await page.goto('/dashboard/members');
  const email = uniqueEmail('viewer');
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Role', { exact: true }).selectOption('viewer');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(page.getByRole('status')).toContainText('The invitation is sent.');
  await expect(page.getByRole('cell', { name: email, exact: true })).toBeVisible();
  await expectAccessible(page);

  const viewer = await signUpInvited(browser, baseURL!, email);
  for (const path of ['/dashboard/members', '/dashboard/sandbox', '/dashboard/security']) {
    await viewer.goto(path);
    await expectAccessible(viewer);
    for (const name of [
      'Send invitation',
      'Change role',
      'Publish',
      'Expire now',
      'Favourite',
      'Send a buyer message',
    ])
      await expect(viewer.getByRole('button', { name })).toHaveCount(0);
  }
  await viewer.goto('/dashboard/members');
  const csrf = await viewer.locator('meta[name="csrf-token"]').getAttribute('content');
  const refused = await viewer.request.post('/dashboard/members/invitations', {
    form: { _csrf: csrf!, email: uniqueEmail('sneaky'), role: 'owner' },
  });
  expect(refused.status()).toBe(403);
  await viewer.context().close();
});

test('a user with a sign-in accepts an invitation to a second account', async ({
  page,
  baseURL,
  browser,
}) => {
  await signUpVerified(page, baseURL!, 'Inbjudaren AB');
  const guest = await browser.newContext({ baseURL });
  try {
    const guestPage = await guest.newPage();
    const { email } = await signUpVerified(guestPage, baseURL!, 'Gästen AB', uniqueEmail('guest'));

    await page.goto('/dashboard/members');
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Role', { exact: true }).selectOption('developer');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await expect(page.getByRole('status')).toContainText('The invitation is sent.');

    // The mailed link, opened signed in: a button accepts.
    const link = await mailedLink(baseURL!, email, 'invitation');
    await guestPage.goto(link);
    await expect(
      guestPage.getByRole('heading', { level: 1, name: 'Accept an invitation' }),
    ).toBeVisible();
    await expectAccessible(guestPage);
    await guestPage.getByRole('button', { name: 'Accept invitation' }).click();
    await expect(guestPage.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
    await expect(guestPage.locator('.facts').first()).toContainText('Inbjudaren AB');
    await expect(guestPage.locator('.facts').first()).toContainText('developer');
    // Two accounts now: the header offers the switch.
    await expect(guestPage.getByRole('button', { name: 'Switch account' })).toBeVisible();
  } finally {
    await guest.close();
  }
});

test('10 wrong passwords lock the user: the message, the lockout mail; a reset ends the lock', async ({
  page,
  baseURL,
}) => {
  const { email } = await signUpVerified(page, baseURL!, 'Låset AB');
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  for (let i = 0; i < 10; i++) {
    // Another client address per try: the per-address throttle (5 a minute) is not the point here.
    await page.setExtraHTTPHeaders({ 'X-Forwarded-For': `203.0.113.${i + 1}` });
    await page.goto('/dashboard/sign-in');
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill(`wrong password number ${i}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByText('The email or password is not right.').first()).toBeVisible();
  }
  await page.setExtraHTTPHeaders({ 'X-Forwarded-For': '203.0.113.99' });
  await page.goto('/dashboard/sign-in');
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(STRONG_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('The email or password is not right.').first()).toBeVisible();
  await expectAccessible(page);
  const mails = await adminApi<{ data: { subject: string }[] }>(
    baseURL!,
    'GET',
    `/emails?to=${encodeURIComponent(email)}&limit=1`,
  );
  expect(mails.body.data[0].subject).toMatch(/locked for 15 minutes/);

  // The way out: a new password by the mailed reset link, which also ends the lock.
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Reset your password' })).toBeVisible();
  await expectAccessible(page);
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page.getByText('If that email belongs to a user')).toBeVisible();
  await page.goto(await mailedLink(baseURL!, email, 'reset-password'));
  await expect(
    page.getByRole('heading', { level: 1, name: 'Choose a new password' }),
  ).toBeVisible();
  await expectAccessible(page);
  const newPassword = 'marble lantern orchard 77 bicycle';
  await page.getByLabel('New password').fill(newPassword);
  await page.getByRole('button', { name: 'Set new password' }).click();
  await expect(page.getByText('Your password is changed. Sign in with the new one.')).toBeVisible();
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(newPassword);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
});

test('a POST without the CSRF token is refused with 403 and changes nothing', async ({
  page,
  baseURL,
}) => {
  await signUpVerified(page, baseURL!, 'Tokenlösa AB');
  await page.goto('/dashboard/members');
  const email = uniqueEmail('no-csrf');
  const refused = await page.request.post('/dashboard/members/invitations', {
    form: { email, role: 'viewer' },
  });
  expect(refused.status()).toBe(403);
  await page.goto('/dashboard/members');
  await expect(page.getByText('No invitations are waiting.')).toBeVisible();
  await expect(page.getByRole('cell', { name: email, exact: true })).toHaveCount(0);
});
