import { admin, anAccount, as, TestAccount } from '../support/factories';
import { expectError, fieldsOf } from '../support/envelope';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';
import { eventually } from '../support/webhook-receiver';
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
    const created = await admin(t)
      .post('/v1/admin/accounts')
      .send({ name: 'Väntar AB' })
      .expect(201);
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
      const first = await admin(t)
        .get('/v1/admin/access-requests?status=pending&limit=1')
        .expect(200);
      expect(first.body.data).toHaveLength(1);
      expect(first.body.pagination).toMatchObject({ limit: 1, hasMore: true });
      const ids: string[] = [first.body.data[0].id];
      let after = first.body.pagination.nextCursor;
      while (after) {
        const next = await admin(t)
          .get(`/v1/admin/access-requests?status=pending&limit=1&after=${after}`)
          .expect(200);
        ids.push(...next.body.data.map((r: { id: string }) => r.id));
        after = next.body.pagination.hasMore ? next.body.pagination.nextCursor : null;
      }
      expect(ids).toEqual(expect.arrayContaining([a.requestId, b.requestId]));

      const approved = await admin(t)
        .post(`/v1/admin/access-requests/${a.requestId}/approve`)
        .expect(200);
      expect(approved.body.data).toMatchObject({
        status: 'approved',
        decidedBy: 'admin',
        account: { id: a.accountId, status: 'APPROVED' },
      });
      const again = expectError(
        await admin(t).post(`/v1/admin/access-requests/${a.requestId}/approve`),
        400,
        'VALIDATION_ERROR',
      );
      expect(again.details).toEqual([
        { field: 'status', message: expect.stringMatching(/already approved/) },
      ]);
      const audit = await auditOf(a.accountId);
      expect(audit.data.map((r: { action: string }) => r.action)).toEqual([
        'access.approved',
        'access.requested',
      ]);
      expect(audit.data[0]).toMatchObject({ actorType: 'admin', target: a.requestId });

      // now approved, the account gets keys
      await admin(t)
        .post(`/v1/admin/accounts/${a.accountId}/keys`)
        .send({ kind: 'test' })
        .expect(201);
    });

    it('rejects with a reason (required, 1–500 characters); 404 for an unknown or malformed id', async () => {
      const { accountId, requestId } = await pendingRequest();
      expect(
        fieldsOf(
          await admin(t).post(`/v1/admin/access-requests/${requestId}/reject`).send({}).expect(400),
        ),
      ).toEqual(['reason']);
      expect(
        fieldsOf(
          await admin(t)
            .post(`/v1/admin/access-requests/${requestId}/reject`)
            .send({ reason: 'x'.repeat(501) })
            .expect(400),
        ),
      ).toEqual(['reason']);
      expect(
        fieldsOf(await admin(t).get('/v1/admin/access-requests?status=open').expect(400)),
      ).toEqual(['status']);
      expectError(
        await admin(t).post(
          '/v1/admin/access-requests/00000000-0000-4000-8000-000000000000/approve',
        ),
        404,
        'NOT_FOUND',
      );
      expectError(
        await admin(t).post('/v1/admin/access-requests/not-a-uuid/approve'),
        404,
        'NOT_FOUND',
      );
      const rejected = await admin(t)
        .post(`/v1/admin/access-requests/${requestId}/reject`)
        .send({ reason: 'Unknown company' })
        .expect(200);
      expect(rejected.body.data).toMatchObject({
        status: 'rejected',
        rejectionReason: 'Unknown company',
        account: { id: accountId, status: 'PENDING' },
      });
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
      expect(
        fieldsOf(
          await admin(t).post(`/v1/admin/keys/${oldId}/roll`).send({ grace: '2h' }).expect(400),
        ),
      ).toEqual(['grace']);
      const rolled = await admin(t)
        .post(`/v1/admin/keys/${oldId}/roll`)
        .send({ grace: '0' })
        .expect(200);
      expect(rolled.body.data).toMatchObject({
        kind: 'test',
        accountId: account.id,
        rolled: { id: oldId },
      });
      expect(rolled.body.data.key).toMatch(/^svc_test_/);
      expectError(await as(t, account.testKey).get('/v1/me'), 401, 'UNAUTHORIZED');
      const fresh = await as(t, rolled.body.data.key).get('/v1/me').expect(200);
      expect(fresh.body.data.key).toMatchObject({ id: rolled.body.data.id, expiresAt: null });
      expectError(
        await admin(t).post(`/v1/admin/keys/${oldId}/roll`).send({ grace: '0' }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await admin(t)
          .post('/v1/admin/keys/00000000-0000-4000-8000-000000000000/roll')
          .send({ grace: '0' }),
        404,
        'NOT_FOUND',
      );
      account.testKey = rolled.body.data.key;
    });

    it('with a grace, the old key keeps working and shows its expiry', async () => {
      const me = await as(t, account.liveKey).get('/v1/me').expect(200);
      const rolled = await admin(t)
        .post(`/v1/admin/keys/${me.body.data.key.id}/roll`)
        .send({ grace: '1h' })
        .expect(200);
      const still = await as(t, account.liveKey).get('/v1/me').expect(200);
      expect(Date.parse(still.body.data.key.expiresAt)).toBeGreaterThan(Date.now() + 3_500_000);
      await as(t, rolled.body.data.key).get('/v1/me').expect(200);
    });
  });

  describe('audit from the public API', () => {
    it('an endpoint create writes a row visible at the account audit; one refused by validation writes none', async () => {
      const fresh = await anAccount(t).build();
      const before = (await auditOf(fresh.id)).data.length;
      expectError(
        await as(t, fresh.testKey).post('/v1/webhooks').send({ url: 'not a url' }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await as(t, fresh.testKey).post('/v1/webhooks').send({ url: 'ftp://x.example/' }),
        400,
        'VALIDATION_ERROR',
      );
      expect((await auditOf(fresh.id)).data).toHaveLength(before);

      const me = await as(t, fresh.testKey).get('/v1/me').expect(200);
      const created = await as(t, fresh.testKey)
        .post('/v1/webhooks')
        .set('User-Agent', 'audit-e2e/1.0')
        .send({ url: 'http://127.0.0.1:9/hook' })
        .expect(201);
      const endpointId = created.body.data.id as string;
      await as(t, fresh.testKey)
        .patch(`/v1/webhooks/${endpointId}`)
        .send({ description: 'ERP' })
        .expect(200);
      await as(t, fresh.testKey)
        .post(`/v1/webhooks/${endpointId}/rotate-secret`)
        .send({ expireCurrentAfterHours: 0 })
        .expect(200);
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

    const UNKNOWN = '00000000-0000-4000-8000-000000000000';

    interface AuditRow {
      action: string;
      actor_type: string;
      actor_id: string | null;
      target: string | null;
      details: Record<string, unknown>;
    }

    /**
     * A fresh account acting through /v1 with its test key: the key's id, and the audit rows
     * written since (oldest first, read from the table), so setup rows never count.
     */
    async function publicCaller() {
      const owner = await anAccount(t).build();
      const keyId = (await as(t, owner.testKey).get('/v1/me').expect(200)).body.data.key
        .id as string;
      const rowsOf = async () =>
        (await t.dataSource.query(
          `SELECT action, actor_type, actor_id, target, details FROM audit_log
            WHERE account_id = $1 ORDER BY id`,
          [owner.id],
        )) as AuditRow[];
      const start = (await rowsOf()).length;
      return {
        owner,
        api: as(t, owner.testKey),
        /** the row an action by this key writes */
        byKey: (action: string, target: string, details: Record<string, unknown> = {}) => ({
          action,
          actor_type: 'api_key',
          actor_id: keyId,
          target,
          details: expect.objectContaining({ livemode: false, ...details }),
        }),
        rowsSince: async () => (await rowsOf()).slice(start),
      };
    }

    const newEndpoint = async (api: ReturnType<typeof as>) =>
      (await api.post('/v1/webhooks').send({ url: 'http://127.0.0.1:9/hook' }).expect(201)).body
        .data.id as string;

    /**
     * `action` on the owner's test-mode import answers 404 for an unknown id, a malformed one,
     * another account's key and the owner's live key.
     */
    async function expectNotFoundElsewhere(
      owner: TestAccount,
      id: string,
      action: 'confirm' | 'cancel',
    ): Promise<void> {
      const other = await anAccount(t).build();
      const api = as(t, owner.testKey);
      expectError(await api.post(`/v1/imports/${UNKNOWN}/${action}`), 404, 'NOT_FOUND');
      expectError(await api.post(`/v1/imports/not-a-uuid/${action}`), 404, 'NOT_FOUND');
      expectError(await as(t, other.testKey).post(`/v1/imports/${id}/${action}`), 404, 'NOT_FOUND');
      expectError(await as(t, owner.liveKey).post(`/v1/imports/${id}/${action}`), 404, 'NOT_FOUND');
    }

    /** A mirror import held over its removal limit (0), made through /v1 with `key`. */
    async function heldImport(key: string): Promise<string> {
      await as(t, key)
        .put('/v1/listings/by-external-id/audit-gone')
        .send(aListing().build())
        .expect(201);
      const created = await as(t, key)
        .post('/v1/imports?mode=mirror&maxRemovals=0')
        .set('Content-Type', 'application/x-ndjson')
        .send(`${JSON.stringify(aListing().withExternalId('audit-keep').build())}\n`)
        .expect(202);
      const id = created.body.data.id as string;
      let status = 'queued';
      await eventually(
        async () => {
          status = (await as(t, key).get(`/v1/imports/${id}`).expect(200)).body.data.status;
          return !['queued', 'running'].includes(status);
        },
        30_000,
        () => `import ${id} still ${status}`,
      );
      expect(status).toBe('held');
      return id;
    }

    it('an endpoint update, secret rotation and delete each write one row by the key; refused ones write none', async () => {
      const { owner, api, byKey, rowsSince } = await publicCaller();
      const other = await anAccount(t).build();
      const id = await newEndpoint(api);
      const created = byKey('endpoint.created', id);

      expectError(
        await api.patch(`/v1/webhooks/${id}`).send({ url: 'not a url' }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await api.patch(`/v1/webhooks/${id}`).send({ isActive: 'yes' }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await api.patch(`/v1/webhooks/${UNKNOWN}`).send({ description: 'ERP' }),
        404,
        'NOT_FOUND',
      );
      expectError(
        await as(t, other.testKey).patch(`/v1/webhooks/${id}`).send({ description: 'ERP' }),
        404,
        'NOT_FOUND',
      );
      // the same account's live key: the test-mode endpoint is not there
      expectError(
        await as(t, owner.liveKey).patch(`/v1/webhooks/${id}`).send({ description: 'ERP' }),
        404,
        'NOT_FOUND',
      );
      expect(await rowsSince()).toMatchObject([created]);
      await api.patch(`/v1/webhooks/${id}`).send({ description: 'ERP' }).expect(200);
      const updated = byKey('endpoint.updated', id, { changed: { description: 'ERP' } });
      expect(await rowsSince()).toMatchObject([created, updated]);

      expect(
        fieldsOf(
          await api
            .post(`/v1/webhooks/${id}/rotate-secret`)
            .send({ expireCurrentAfterHours: 73 })
            .expect(400),
        ),
      ).toEqual(['expireCurrentAfterHours']);
      expectError(
        await api.post(`/v1/webhooks/${UNKNOWN}/rotate-secret`).send({}),
        404,
        'NOT_FOUND',
      );
      expectError(
        await as(t, other.testKey).post(`/v1/webhooks/${id}/rotate-secret`).send({}),
        404,
        'NOT_FOUND',
      );
      expect(await rowsSince()).toMatchObject([created, updated]);
      const rotated = await api
        .post(`/v1/webhooks/${id}/rotate-secret`)
        .send({ expireCurrentAfterHours: 0 })
        .expect(200);
      const rotation = byKey('endpoint.secret_rotated', id, { expireCurrentAfterHours: 0 });
      expect(await rowsSince()).toMatchObject([created, updated, rotation]);

      expectError(await api.delete(`/v1/webhooks/${UNKNOWN}`), 404, 'NOT_FOUND');
      expectError(await api.delete('/v1/webhooks/not-a-uuid'), 404, 'NOT_FOUND');
      expectError(await as(t, other.testKey).delete(`/v1/webhooks/${id}`), 404, 'NOT_FOUND');
      expect(await rowsSince()).toMatchObject([created, updated, rotation]);
      await api.delete(`/v1/webhooks/${id}`).expect(200);
      const deleted = byKey('endpoint.deleted', id, { url: 'http://127.0.0.1:9/hook' });
      expectError(await api.delete(`/v1/webhooks/${id}`), 404, 'NOT_FOUND');
      const rows = await rowsSince();
      expect(rows).toMatchObject([created, updated, rotation, deleted]);
      expect(JSON.stringify(rows)).not.toContain(rotated.body.data.secret);
      expect(JSON.stringify(rows)).not.toContain('whsec_');
    });

    it('a delivery retry and a recover each write one row by the key; refused ones write none', async () => {
      const { api, byKey, rowsSince } = await publicCaller();
      const other = await anAccount(t).build();
      const id = await newEndpoint(api);
      const deliveryId = (await api.post(`/v1/webhooks/${id}/test`).expect(200)).body.data
        .deliveryId as string;
      const setup = [
        byKey('endpoint.created', id),
        byKey('endpoint.test_sent', id, { deliveryId }),
      ];
      const since = new Date(Date.now() - 60_000).toISOString();

      expectError(
        await api.post(`/v1/webhooks/${id}/deliveries/${UNKNOWN}/retry`),
        404,
        'NOT_FOUND',
      );
      expectError(
        await api.post(`/v1/webhooks/${UNKNOWN}/deliveries/${deliveryId}/retry`),
        404,
        'NOT_FOUND',
      );
      expectError(
        await as(t, other.testKey).post(`/v1/webhooks/${id}/deliveries/${deliveryId}/retry`),
        404,
        'NOT_FOUND',
      );
      expect(
        fieldsOf(
          await api.post(`/v1/webhooks/${id}/recover`).send({ since: 'yesterday' }).expect(400),
        ),
      ).toEqual(['since']);
      const future = new Date(Date.now() + 3_600_000).toISOString();
      expect(
        fieldsOf(await api.post(`/v1/webhooks/${id}/recover`).send({ since: future }).expect(400)),
      ).toEqual(['since']);
      expectError(
        await api.post(`/v1/webhooks/${UNKNOWN}/recover`).send({ since }),
        404,
        'NOT_FOUND',
      );
      expectError(
        await as(t, other.testKey).post(`/v1/webhooks/${id}/recover`).send({ since }),
        404,
        'NOT_FOUND',
      );
      expect(await rowsSince()).toMatchObject(setup);

      // paused, both are refused (400 on isActive) and write nothing; the two PATCHes write theirs
      await api.patch(`/v1/webhooks/${id}`).send({ isActive: false }).expect(200);
      expect(
        fieldsOf(await api.post(`/v1/webhooks/${id}/deliveries/${deliveryId}/retry`).expect(400)),
      ).toEqual(['isActive']);
      expect(
        fieldsOf(await api.post(`/v1/webhooks/${id}/recover`).send({ since }).expect(400)),
      ).toEqual(['isActive']);
      await api.patch(`/v1/webhooks/${id}`).send({ isActive: true }).expect(200);
      const toggles = [false, true].map((isActive) =>
        byKey('endpoint.updated', id, { changed: { isActive } }),
      );
      expect(await rowsSince()).toMatchObject([...setup, ...toggles]);

      await api.post(`/v1/webhooks/${id}/deliveries/${deliveryId}/retry`).expect(202);
      const retried = byKey('delivery.retried', deliveryId, { endpointId: id });
      expect(await rowsSince()).toMatchObject([...setup, ...toggles, retried]);

      const recovered = await api.post(`/v1/webhooks/${id}/recover`).send({ since }).expect(202);
      expect(await rowsSince()).toMatchObject([
        ...setup,
        ...toggles,
        retried,
        byKey('deliveries.recovered', id, { since, queued: recovered.body.data.queued }),
      ]);
    });

    it('an import confirm writes one row by the key; refused ones write none', async () => {
      const { owner, api, byKey, rowsSince } = await publicCaller();
      const id = await heldImport(owner.testKey);
      expect(await rowsSince()).toEqual([]);

      await expectNotFoundElsewhere(owner, id, 'confirm');
      expect(await rowsSince()).toEqual([]);

      const confirmed = await api.post(`/v1/imports/${id}/confirm`).expect(200);
      expect(confirmed.body.data).toMatchObject({ id, status: 'queued' });
      const row = byKey('import.confirmed', id);
      expect(await rowsSince()).toMatchObject([row]);
      // no longer held: a second confirm is refused and writes nothing
      expect(fieldsOf(await api.post(`/v1/imports/${id}/confirm`).expect(400))).toEqual(['status']);
      expect(await rowsSince()).toMatchObject([row]);
    });

    it('an import cancel writes one row by the key; refused ones write none', async () => {
      const { owner, api, byKey, rowsSince } = await publicCaller();
      const id = await heldImport(owner.testKey);

      await expectNotFoundElsewhere(owner, id, 'cancel');
      expect(await rowsSince()).toEqual([]);

      const cancelled = await api.post(`/v1/imports/${id}/cancel`).expect(200);
      expect(cancelled.body.data).toMatchObject({ id, status: 'cancelled' });
      const row = byKey('import.cancelled', id, { stopped: true });
      expect(await rowsSince()).toMatchObject([row]);
      // ended: cancelling again or confirming is refused and writes nothing
      expect(fieldsOf(await api.post(`/v1/imports/${id}/cancel`).expect(400))).toEqual(['status']);
      expect(fieldsOf(await api.post(`/v1/imports/${id}/confirm`).expect(400))).toEqual(['status']);
      expect(await rowsSince()).toMatchObject([row]);
    });

    it('pages newest first; 404 for an unknown account, 400 for a bad cursor', async () => {
      const page = await admin(t).get(`/v1/admin/accounts/${account.id}/audit?limit=1`).expect(200);
      expect(page.body.data).toHaveLength(1);
      expect(page.body.pagination.hasMore).toBe(true);
      const next = await admin(t)
        .get(
          `/v1/admin/accounts/${account.id}/audit?limit=1&after=${page.body.pagination.nextCursor}`,
        )
        .expect(200);
      expect(Number(next.body.data[0].id)).toBeLessThan(Number(page.body.data[0].id));
      expectError(
        await admin(t).get('/v1/admin/accounts/00000000-0000-4000-8000-000000000000/audit'),
        404,
        'NOT_FOUND',
      );
      expect(
        fieldsOf(
          await admin(t).get(`/v1/admin/accounts/${account.id}/audit?after=abc`).expect(400),
        ),
      ).toEqual(['after']);
    });
  });
});
