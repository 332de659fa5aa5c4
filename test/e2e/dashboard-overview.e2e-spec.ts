import { admin } from '../support/factories';
import { aDashboardOwner } from '../support/dashboard';
import { createTestApp, TestApp } from '../support/test-app';

describe('Dashboard: overview facts', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it("shows today's requests and errors, disabled endpoints, held imports and expiring keys of the mode", async () => {
    const owner = await aDashboardOwner(t, { status: 'APPROVED' });
    const created = await admin(t)
      .post(`/v1/admin/accounts/${owner.accountId}/keys`)
      .send({ kind: 'test', name: 'Rolled soon' })
      .expect(201);
    await admin(t)
      .post(`/v1/admin/keys/${created.body.data.id}/roll`)
      .send({ grace: '24h' })
      .expect(200);
    const today = new Date().toISOString().slice(0, 10);
    await t.dataSource.query(
      `INSERT INTO api_usage (key_id, day, method, route, status_class, rate_limited, requests)
       VALUES ($1, $2, 'GET', '/v1/me', 2, false, 40), ($1, $2, 'GET', '/v1/listings', 4, false, 3),
              ($1, $2, 'GET', '/v1/listings', 5, false, 2)`,
      [created.body.data.id, today],
    );
    await t.dataSource.query(
      `INSERT INTO webhook_endpoints (account_id, livemode, url, secret, is_active,
         consecutive_failures, disabled_at)
       VALUES ($1, false, 'https://example.se/hook', 'whsec_x', false, 20, now()),
              ($1, true, 'https://example.se/live', 'whsec_y', false, 20, now())`,
      [owner.accountId],
    );
    const page = await owner.agent.get('/dashboard').expect(200);
    expect(page.text).toContain('Today in test mode');
    expect(page.text).toContain('45 requests');
    expect(page.text).toContain('5 errors');
    expect(page.text).toContain('1 disabled');
    expect(page.text).toContain('0 held');
    expect(page.text).toContain('1 expiring');
    expect(page.text).toContain('Rolled soon</a> stops working');
    expect(page.text).toContain('href="/dashboard/keys"');
    expect(page.text).toContain('href="/dashboard/webhooks"');
  });
});
