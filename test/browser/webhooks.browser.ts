import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { approvedOwnerWithKey, expect, expectAccessible, screenshot, test } from './service';

/** A receiver on 127.0.0.1 that answers every delivery 200 and counts them. */
async function startReceiver(): Promise<{ url: string; received: string[]; server: Server }> {
  const received: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('received <ok>');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, received, server };
}

test('webhooks: create (secret once), send test, see the delivery, retry, rotate', async ({
  page,
  baseURL,
}) => {
  const receiver = await startReceiver();
  try {
    await approvedOwnerWithKey(page, baseURL!, 'Webbkrokar i Luleå AB');

    await page.getByRole('link', { name: 'Webhooks' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Webhooks' })).toBeVisible();
    await expect(page.getByText('No endpoints in test mode yet.')).toBeVisible();
    await expectAccessible(page);

    // A refused URL: the message in the summary and beside the field.
    await page.getByRole('link', { name: 'Add an endpoint' }).click();
    await expectAccessible(page);
    await page.getByLabel('Endpoint URL').fill('not a url');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await expect(page.locator('.error-summary')).toContainText('absolute http(s) URL');
    await expectAccessible(page);

    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Description (optional)').fill('Lagret');
    await page.getByLabel('listing.created').check();
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Endpoint created' })).toBeVisible();
    const secret = (await page.locator('#webhook-secret').textContent())!.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    await expectAccessible(page);

    // The endpoint's page never shows the secret again.
    await page.getByRole('link', { name: 'Go to the endpoint' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Webhook endpoint' })).toBeVisible();
    expect(await page.content()).not.toContain(secret);
    await expectAccessible(page);

    // Recover without a time: refused on a page of its own, the message beside the field.
    await page.getByLabel('Since (Stockholm time)').fill('');
    await page.getByRole('button', { name: 'Recover events' }).click();
    await expect(
      page.getByRole('heading', { level: 1, name: 'Recover missed events' }),
    ).toBeVisible();
    await expect(page.locator('.error-summary')).toContainText('Enter a date and time');
    await expectAccessible(page);
    await page.getByRole('link', { name: 'Back to the endpoint' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Webhook endpoint' })).toBeVisible();

    // Send test: the delivery and its attempt.
    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect(
      page.getByRole('heading', { level: 1, name: 'Delivery of webhook.test' }),
    ).toBeVisible();
    await expect(page.getByRole('cell', { name: 'HTTP 200' })).toBeVisible();
    await expect(page.locator('pre.excerpt')).toHaveText('received <ok>');
    expect(receiver.received).toHaveLength(1);
    await expectAccessible(page);
    await screenshot(page, 'webhook-delivery');

    // Retry it: the worker makes a manual attempt.
    await page.getByRole('button', { name: 'Retry delivery' }).click();
    await expect(page.getByText('A retry is queued.')).toBeVisible();
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.getByRole('cell', { name: 'Manual retry' }).count();
        },
        { timeout: 20_000 },
      )
      .toBe(1);
    expect(receiver.received).toHaveLength(2);
    await expectAccessible(page);

    // The endpoint's deliveries list it.
    await page.getByRole('link', { name: 'Back to the endpoint' }).click();
    await expect(page.getByRole('cell', { name: 'webhook.test' })).toBeVisible();
    await page.getByLabel('Status').selectOption('succeeded');
    await page.getByRole('button', { name: 'Filter deliveries' }).click();
    await expect(page.getByRole('cell', { name: 'webhook.test' })).toBeVisible();
    await expectAccessible(page);

    // Rotate: a new secret, shown once.
    await page.getByRole('link', { name: 'Rotate secret' }).click();
    await expectAccessible(page);
    await page.getByLabel('Grace period in hours').fill('1');
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await expect(
      page.getByRole('heading', { level: 1, name: 'Signing secret rotated' }),
    ).toBeVisible();
    const rotated = (await page.locator('#webhook-secret').textContent())!.trim();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await expectAccessible(page);

    await page.getByRole('link', { name: 'Go to the endpoint' }).click();
    expect(await page.content()).not.toContain(rotated);
    await page.getByRole('link', { name: 'Delete endpoint' }).click();
    await expectAccessible(page);
  } finally {
    receiver.server.closeAllConnections();
    await new Promise((resolve) => receiver.server.close(resolve));
  }
});
