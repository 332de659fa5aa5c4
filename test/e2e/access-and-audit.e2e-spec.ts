import { admin, anAccount, as, TestAccount } from '../support/factories';
import { expectError, fieldsOf } from '../support/envelope';
import { createTestApp, TestApp } from '../support/test-app';
import { AccessRequestsService } from '../../src/access-requests/access-requests.service';

/** The admin API's access requests, key roll and audit log, and the audit rows the public API writes. */
describe('Access requests, key roll and the audit log', () => {
  let t: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    account = await anAccount(t).build();
  });
  afterAll(() => t.close());

  const auditOf = async (accountId: string) =>
    (await admin(t).get(`/v1/admin/accounts/${accountId}/audit`).expect(200)).body;

  /** A PENDING account with an open request, sent through the service the dashboard will call. */
  async function pendingRequest(): Promise<{ accountId: string; requestId: string }> {
    const created = await admin(t).post('/v1/admin/accounts').send({ name: 'Väntar AB' }).expect(201);
    const accountId = created.body.data.id as string;
    const request = await t.app.get(AccessRequestsService).submit(
      accountId,
      {
        legalName: 'Väntar AB',
        organisationNumber: '5560360793',
        website: 'https://vantar.example',
        integrationDescription: 'Dealer system feed of used cars.',
        expectedListings: '1-100',
        termsAccepted: true,
      },
      { actor: { type: 'user', id: 'u-1' } },
    );
    return { accountId, requestId: request.id };
  }

  describe('access requests', () => {
    it('lists pending ones with cursor paging, approves one (account APPROVED) and refuses a second decision', async () => {
      const a = await pendingRequest();
      const b = await pendingRequest();
      const first = await admin(t).get('/v1/admin/access-requests?status=pending&limit=1').expect(200);
      expect(first.body.data).toHaveLength(1);
      expect(first.body.pagination).toMatchObject({ limit: 1, hasMore: true });
      const ids: string[] = [first.body.data[0].id];
      let after = first.body.pagination.nextCursor;
      while (after) {
        const next = await admin(t).get(`/v1/admin/access-requests?status=pending&limit=1&after=${after}`).expect(200);
        ids.push(...next.body.data.map((r: { id: string }) => r.id));
        after = next.body.pagination.hasMore ? next.body.pagination.nextCursor : null;
      }
      expect(ids).toEqual(expect.arrayContaining([a.requestId, b.requestId]));

      const approved = await admin(t).post(`/v1/admin/access-requests/${a.requestId}/approve`).expect(200);
      expect(approved.body.data).toMatchObject({ status: 'approved', decidedBy: 'admin', account: { id: a.accountId, status: 'APPROVED' } });
      const again = expectError(await admin(t).post(`/v1/admin/access-requests/${a.requestId}/approve`), 400, 'VALIDATION_ERROR');
      expect(again.details).toEqual([{ field: 'status', message: expect.stringMatching(/already approved/) }]);
      const audit = await auditOf(a.accountId);
      expect(audit.data.map((r: { action: string }) => r.action)).toEqual(['access.approved', 'access.requested']);
      expect(audit.data[0]).toMatchObject({ actorType: 'admin', target: a.requestId });

      // now approved, the account gets keys
      await admin(t).post(`/v1/admin/accounts/${a.accountId}/keys`).send({ kind: 'test' }).expect(201);
    });

    it('rejects with a reason (required, 1–500 characters); 404 for an unknown or malformed id', async () => {
      const { accountId, requestId } = await pendingRequest();
      expect(fieldsOf(await admin(t).post(`/v1/admin/access-requests/${requestId}/reject`).send({}).expect(400))).toEqual(['reason']);
      expect(fieldsOf(await admin(t).post(`/v1/admin/access-requests/${requestId}/reject`).send({ reason: 'x'.repeat(501) }).expect(400))).toEqual(['reason']);
      expect(fieldsOf(await admin(t).get('/v1/admin/access-requests?status=open').expect(400))).toEqual(['status']);
      expectError(await admin(t).post('/v1/admin/access-requests/00000000-0000-4000-8000-000000000000/approve'), 404, 'NOT_FOUND');
      expectError(await admin(t).post('/v1/admin/access-requests/not-a-uuid/approve'), 404, 'NOT_FOUND');
      const rejected = await admin(t).post(`/v1/admin/access-requests/${requestId}/reject`).send({ reason: 'Unknown company' }).expect(200);
      expect(rejected.body.data).toMatchObject({ status: 'rejected', rejectionReason: 'Unknown company', account: { id: accountId, status: 'PENDING' } });
    });

    it('the account approve route closes an open request', async () => {
      const { accountId, requestId } = await pendingRequest();
      await admin(t).post(`/v1/admin/accounts/${accountId}/approve`).expect(200);
      const request = await admin(t).get(`/v1/admin/access-requests/${requestId}`).expect(200);
      expect(request.body.data).toMatchObject({ status: 'approved', decidedBy: 'admin' });
    });

    it('needs the admin token', async () => {
      expect((await t.http().get('/v1/admin/access-requests')).status).toBeGreaterThanOrEqual(400);
    });
  });

  describe('key roll', () => {
    it('answers the new key once; the old one is refused (401) when its grace of 0 ends', async () => {
      const me = await as(t, account.testKey).get('/v1/me').expect(200);
      const oldId = me.body.data.key.id as string;
      expect(me.body.data.key.expiresAt).toBeNull();
      expect(fieldsOf(await admin(t).post(`/v1/admin/keys/${oldId}/roll`).send({ grace: '2h' }).expect(400))).toEqual(['grace']);
      const rolled = await admin(t).post(`/v1/admin/keys/${oldId}/roll`).send({ grace: '0' }).expect(200);
      expect(rolled.body.data).toMatchObject({ kind: 'test', accountId: account.id, rolled: { id: oldId } });
      expect(rolled.body.data.key).toMatch(/^svc_test_/);
      expectError(await as(t, account.testKey).get('/v1/me'), 401, 'UNAUTHORIZED');
      const fresh = await as(t, rolled.body.data.key).get('/v1/me').expect(200);
      expect(fresh.body.data.key).toMatchObject({ id: rolled.body.data.id, expiresAt: null });
      expectError(await admin(t).post(`/v1/admin/keys/${oldId}/roll`).send({ grace: '0' }), 400, 'VALIDATION_ERROR');
      expectError(await admin(t).post('/v1/admin/keys/00000000-0000-4000-8000-000000000000/roll').send({ grace: '0' }), 404, 'NOT_FOUND');
      account.testKey = rolled.body.data.key;
    });

    it('with a grace, the old key keeps working and shows its expiry', async () => {
      const me = await as(t, account.liveKey).get('/v1/me').expect(200);
      const rolled = await admin(t).post(`/v1/admin/keys/${me.body.data.key.id}/roll`).send({ grace: '1h' }).expect(200);
      const still = await as(t, account.liveKey).get('/v1/me').expect(200);
      expect(Date.parse(still.body.data.key.expiresAt)).toBeGreaterThan(Date.now() + 3_500_000);
      await as(t, rolled.body.data.key).get('/v1/me').expect(200);
    });
  });

  describe('audit from the public API', () => {
    it('an endpoint create writes a row visible at the account audit; one refused by validation writes none', async () => {
      const fresh = await anAccount(t).build();
      const before = (await auditOf(fresh.id)).data.length;
      expectError(await as(t, fresh.testKey).post('/v1/webhooks').send({ url: 'not a url' }), 400, 'VALIDATION_ERROR');
      expectError(await as(t, fresh.testKey).post('/v1/webhooks').send({ url: 'ftp://x.example/' }), 400, 'VALIDATION_ERROR');
      expect((await auditOf(fresh.id)).data).toHaveLength(before);

      const me = await as(t, fresh.testKey).get('/v1/me').expect(200);
      const created = await as(t, fresh.testKey)
        .post('/v1/webhooks')
        .set('User-Agent', 'audit-e2e/1.0')
        .send({ url: 'http://127.0.0.1:9/hook' })
        .expect(201);
      const endpointId = created.body.data.id as string;
      await as(t, fresh.testKey).patch(`/v1/webhooks/${endpointId}`).send({ description: 'ERP' }).expect(200);
      await as(t, fresh.testKey).post(`/v1/webhooks/${endpointId}/rotate-secret`).send({ expireCurrentAfterHours: 0 }).expect(200);
      await as(t, fresh.testKey).post(`/v1/webhooks/${endpointId}/test`).expect(200);
      await as(t, fresh.testKey).delete(`/v1/webhooks/${endpointId}`).expect(200);

      const audit = await auditOf(fresh.id);
      expect(audit.data.slice(0, 5).map((r: { action: string }) => r.action)).toEqual([
        'endpoint.deleted',
        'endpoint.test_sent',
        'endpoint.secret_rotated',
        'endpoint.updated',
        'endpoint.created',
      ]);
      expect(audit.data[4]).toMatchObject({
        actorType: 'api_key',
        actorId: me.body.data.key.id,
        target: endpointId,
        userAgent: 'audit-e2e/1.0',
        ip: expect.any(String),
      });
      expect(JSON.stringify(audit.data)).not.toContain(created.body.data.secret);
      expect(JSON.stringify(audit.data)).not.toContain('whsec_');
    });

    it('pages newest first; 404 for an unknown account, 400 for a bad cursor', async () => {
      const page = await admin(t).get(`/v1/admin/accounts/${account.id}/audit?limit=1`).expect(200);
      expect(page.body.data).toHaveLength(1);
      expect(page.body.pagination.hasMore).toBe(true);
      const next = await admin(t).get(`/v1/admin/accounts/${account.id}/audit?limit=1&after=${page.body.pagination.nextCursor}`).expect(200);
      expect(Number(next.body.data[0].id)).toBeLessThan(Number(page.body.data[0].id));
      expectError(await admin(t).get('/v1/admin/accounts/00000000-0000-4000-8000-000000000000/audit'), 404, 'NOT_FOUND');
      expect(fieldsOf(await admin(t).get(`/v1/admin/accounts/${account.id}/audit?after=abc`).expect(400))).toEqual(['after']);
    });
  });
});
