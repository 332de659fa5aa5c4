import { anAccount, admin, as, TestAccount } from '../support/factories';
import { expectError, fieldsOf } from '../support/envelope';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';
import { eventually } from '../support/webhook-receiver';
import { SchedulerRegistry } from '@nestjs/schedule';
import { ExpiryService } from '../../src/listings/expiry/expiry.service';

describe('Listings: states and transitions', () => {
  let t: TestApp;
  let seller: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    seller = await anAccount(t).build();
  });
  afterAll(() => t.close());

  const live = () => as(t, seller.liveKey);
  const create = async (key = seller.liveKey, body = aListing().build()) =>
    (await as(t, key).post('/v1/listings').send(body).expect(201)).body.data;
  const setStatus = (id: string, status: string) =>
    t.dataSource.query(
      `UPDATE listings SET status = $2, expires_at = COALESCE(expires_at, now()) WHERE id = $1`,
      [id, status],
    );
  const eventsOf = async (id: string) =>
    (await t.dataSource.query(
      `SELECT event, data FROM outbox_events WHERE data->>'id' = $1 ORDER BY seq`,
      [id],
    )) as {
      event: string;
      data: Record<string, unknown>;
    }[];

  describe('POST /v1/listings/:id/sold', () => {
    it('ACTIVE → SOLD with soldAt and one listing.sold event', async () => {
      const l = await create();
      const res = await live().post(`/v1/listings/${l.id}/sold`).expect(200);
      expect(res.body.data).toMatchObject({ status: 'SOLD', soldAt: expect.any(String) });
      const sold = (await eventsOf(l.id)).filter((e) => e.event === 'listing.sold');
      expect(sold).toEqual([
        {
          event: 'listing.sold',
          data: { id: l.id, externalId: null, livemode: true, soldAt: res.body.data.soldAt },
        },
      ]);
    });

    it.each(['DRAFT', 'SOLD', 'EXPIRED', 'REMOVED'])(
      'refuses %s with 400 on status',
      async (status) => {
        const l = await create();
        await setStatus(l.id, status);
        const error = expectError(
          await live().post(`/v1/listings/${l.id}/sold`),
          400,
          'VALIDATION_ERROR',
        );
        expect(error.details).toEqual([
          { field: 'status', message: expect.stringContaining(status) },
        ]);
      },
    );

    it('answers with the gallery as committed by a change it had to wait for', async () => {
      const l = await create(seller.liveKey, aListing().withImages(1).build());
      const runner = t.dataSource.createQueryRunner();
      await runner.startTransaction();
      try {
        // Another change holds the listing and adds an image; the sale waits for it.
        await runner.query('SELECT id FROM listings WHERE id = $1 FOR UPDATE', [l.id]);
        await runner.query(
          `INSERT INTO listing_images (listing_id, url, position) VALUES ($1, 'https://img.example.com/late.jpg', 1)`,
          [l.id],
        );
        const sold = live()
          .post(`/v1/listings/${l.id}/sold`)
          .then((r) => r);
        // The sale is blocked on that lock before the change commits.
        const [{ pid }] = await runner.query(`SELECT pg_backend_pid() AS pid`);
        await eventually(
          async () =>
            (
              await t.dataSource.query(
                `SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`,
                [pid],
              )
            ).length > 0,
        );
        await runner.commitTransaction();
        const res = await sold;
        expect(res.status).toBe(200);
        expect(res.body.data.images.map((i: { url: string }) => i.url)).toEqual([
          l.images[0].url,
          'https://img.example.com/late.jpg',
        ]);
      } finally {
        await runner.release();
      }
    });

    it('is 404 for a listing of another account', async () => {
      const l = await create();
      const stranger = await anAccount(t).build();
      expectError(
        await as(t, stranger.liveKey).post(`/v1/listings/${l.id}/sold`),
        404,
        'NOT_FOUND',
      );
    });
  });

  describe('POST /v1/listings/:id/renew', () => {
    it('extends an ACTIVE listing by 30 days from its current expiry', async () => {
      const l = await create();
      const res = await live().post(`/v1/listings/${l.id}/renew`).expect(200);
      expect(Date.parse(res.body.data.expiresAt) - Date.parse(l.expiresAt)).toBe(30 * 86_400_000);
      const updated = (await eventsOf(l.id)).filter((e) => e.event === 'listing.updated');
      expect(updated.map((e) => e.data.changedFields)).toEqual([['expiresAt']]);
    });

    it('brings an EXPIRED listing back to ACTIVE for 30 days from now', async () => {
      const l = await create();
      await t.dataSource.query(
        `UPDATE listings SET status = 'EXPIRED', expires_at = now() - interval '3 days' WHERE id = $1`,
        [l.id],
      );
      const before = Date.now();
      const res = await live().post(`/v1/listings/${l.id}/renew`).expect(200);
      expect(res.body.data.status).toBe('ACTIVE');
      const days = (Date.parse(res.body.data.expiresAt) - before) / 86_400_000;
      expect(days).toBeGreaterThan(29.99);
      expect(days).toBeLessThan(30.01);
    });

    it.each(['DRAFT', 'SOLD', 'REMOVED'])('refuses %s with 400 on status', async (status) => {
      const l = await create();
      await setStatus(l.id, status);
      expect(fieldsOf(await live().post(`/v1/listings/${l.id}/renew`))).toEqual(['status']);
    });
  });

  describe('PATCH by state', () => {
    it.each(['DRAFT', 'ACTIVE', 'EXPIRED'])('allows editing a %s listing', async (status) => {
      const l = await create();
      await setStatus(l.id, status);
      await live().patch(`/v1/listings/${l.id}`).send({ price: 5 }).expect(200);
    });

    it.each(['SOLD', 'REMOVED'])(
      'refuses editing a %s listing with 400 on status',
      async (status) => {
        const l = await create();
        await setStatus(l.id, status);
        expect(fieldsOf(await live().patch(`/v1/listings/${l.id}`).send({ price: 5 }))).toEqual([
          'status',
        ]);
      },
    );
  });

  describe('DELETE by state', () => {
    it.each(['DRAFT', 'ACTIVE', 'SOLD', 'EXPIRED'])(
      'removes a %s listing without an event',
      async (status) => {
        const l = await create();
        await setStatus(l.id, status);
        await live().delete(`/v1/listings/${l.id}`).expect(200);
        expect((await eventsOf(l.id)).map((e) => e.event)).toEqual(['listing.created']);
      },
    );
  });

  describe('admin removal', () => {
    it('REMOVED with reason and a listing.removed event; 404 when already removed or unknown', async () => {
      const l = await create();
      const res = await admin(t)
        .post(`/v1/admin/listings/${l.id}/remove`)
        .send({ reason: 'Förbjuden vara' })
        .expect(200);
      expect(res.body.data.status).toBe('REMOVED');
      const removed = (await eventsOf(l.id)).find((e) => e.event === 'listing.removed')!;
      expect(removed.data).toEqual({
        id: l.id,
        externalId: null,
        livemode: true,
        removedAt: res.body.data.removedAt,
        reason: 'Förbjuden vara',
      });
      expectError(
        await admin(t).post(`/v1/admin/listings/${l.id}/remove`).send({ reason: 'x' }),
        404,
        'NOT_FOUND',
      );
      expect(fieldsOf(await admin(t).post(`/v1/admin/listings/${l.id}/remove`).send({}))).toEqual([
        'reason',
      ]);
    });

    it("records messages and favourites as events on the owner's ACTIVE listing", async () => {
      const l = await create(seller.liveKey);
      await admin(t)
        .post(`/v1/admin/listings/${l.id}/messages`)
        .send({ messageId: 'm-1', preview: 'Finns den kvar?' })
        .expect(201);
      await admin(t)
        .post(`/v1/admin/listings/${l.id}/favorites`)
        .send({ userRef: 'u-7' })
        .expect(201);
      const events = await eventsOf(l.id);
      expect(events.map((e) => e.event)).toEqual([
        'listing.created',
        'message.received',
        'listing.favorited',
      ]);
      expect(events[1].data).toMatchObject({
        id: l.id,
        livemode: true,
        messageId: 'm-1',
        receivedAt: expect.any(String),
      });
      expect(events[2].data).toMatchObject({
        id: l.id,
        livemode: true,
        favoritedAt: expect.any(String),
      });
    });

    it('says a text field of the wrong type must be a string, not that its length is wrong', async () => {
      const l = await create(seller.liveKey);
      const detailsOf = async (path: string, body: object) =>
        expectError(await admin(t).post(path).send(body), 400, 'VALIDATION_ERROR').details;
      expect(await detailsOf(`/v1/admin/listings/${l.id}/messages`, { preview: 5 })).toEqual([
        { field: 'preview', message: 'preview must be a string' },
      ]);
      expect(await detailsOf(`/v1/admin/listings/${l.id}/favorites`, { userRef: 5 })).toEqual([
        { field: 'userRef', message: 'userRef must be a string' },
      ]);
      expect(await detailsOf(`/v1/admin/listings/${l.id}/remove`, { reason: 5 })).toEqual([
        { field: 'reason', message: 'reason must be a string' },
      ]);
    });

    it('refuses messages and favourites on a listing buyers cannot see (DRAFT, SOLD, REMOVED), writing no event', async () => {
      const draft = await create(seller.testKey);
      const sold = await create(seller.liveKey);
      await as(t, seller.liveKey).post(`/v1/listings/${sold.id}/sold`).expect(200);
      const removed = await create(seller.liveKey);
      await as(t, seller.liveKey).delete(`/v1/listings/${removed.id}`).expect(200);
      for (const [l, status] of [
        [draft, 'DRAFT'],
        [sold, 'SOLD'],
        [removed, 'REMOVED'],
      ] as const) {
        const message = await admin(t).post(`/v1/admin/listings/${l.id}/messages`).send({});
        expect(expectError(message, 400, 'VALIDATION_ERROR').details).toEqual([
          { field: 'status', message: `Cannot receive a message on a listing in state ${status}.` },
        ]);
        const favorite = await admin(t).post(`/v1/admin/listings/${l.id}/favorites`).send({});
        expect(fieldsOf(favorite)).toEqual(['status']);
        const events = (await eventsOf(l.id)).map((e) => e.event);
        expect(events).not.toContain('message.received');
        expect(events).not.toContain('listing.favorited');
      }
    });
  });

  describe('expiry', () => {
    it("runs on the worker's own schedule, beside every other periodic job", async () => {
      const worker = await createTestApp({
        databaseName: t.databaseName,
        redisPrefix: t.redisPrefix,
        role: 'worker',
        env: { EXPIRY_SWEEP_EVERY: '200ms' },
      });
      try {
        expect(worker.app.get(SchedulerRegistry).getIntervals()).toEqual(
          expect.arrayContaining([
            'audit-purge',
            'delivery-purge',
            'event-purge',
            'idempotency-purge',
            'import-purge',
            'import-sweep',
            'listing-counts-fold',
            'listing-expiry',
            'mail-outbox-purge',
            'storage-deletion-sweep',
            'usage-purge',
          ]),
        );
        const l = await create();
        await t.dataSource.query(
          `UPDATE listings SET expires_at = now() - interval '1 second' WHERE id = $1`,
          [l.id],
        );
        await eventually(
          async () => (await live().get(`/v1/listings/${l.id}`)).body.data.status === 'EXPIRED',
          5_000,
          () => 'the worker did not expire the listing',
        );
      } finally {
        await worker.close();
      }
    });

    it('expires ACTIVE listings past expiresAt, once each, with one listing.expired event each, even when two instances sweep at once', async () => {
      const other = await createTestApp({
        databaseName: t.databaseName,
        redisPrefix: t.redisPrefix,
      });
      try {
        const account = await anAccount(t).build();
        const due = await Promise.all(Array.from({ length: 40 }, () => create(account.liveKey)));
        const notDue = await create(account.liveKey);
        const draft = await create(account.testKey);
        await t.dataSource.query(
          `UPDATE listings SET expires_at = now() - interval '1 second' WHERE id = ANY($1)`,
          [due.map((l) => l.id)],
        );

        const [a, b] = await Promise.all([
          t.app.get(ExpiryService).sweep(),
          other.app.get(ExpiryService).sweep(),
        ]);
        expect(a + b).toBe(40);

        for (const l of due)
          expect((await as(t, account.liveKey).get(`/v1/listings/${l.id}`)).body.data.status).toBe(
            'EXPIRED',
          );
        expect(
          (await as(t, account.liveKey).get(`/v1/listings/${notDue.id}`)).body.data.status,
        ).toBe('ACTIVE');
        expect(
          (await as(t, account.testKey).get(`/v1/listings/${draft.id}`)).body.data.status,
        ).toBe('DRAFT');
        const [{ n }] = await t.dataSource.query(
          `SELECT count(*)::int AS n FROM outbox_events WHERE event = 'listing.expired' AND data->>'id' = ANY($1)`,
          [due.map((l) => l.id)],
        );
        expect(n).toBe(40);
        const [one] = await eventsOf(due[0].id).then((es) =>
          es.filter((e) => e.event === 'listing.expired'),
        );
        expect(one.data).toEqual({
          id: due[0].id,
          externalId: null,
          livemode: true,
          expiredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        });
      } finally {
        await other.close();
      }
    });

    it('sweeps in bounded batches until nothing is due', async () => {
      const small = await createTestApp({
        databaseName: t.databaseName,
        redisPrefix: t.redisPrefix,
        env: { EXPIRY_BATCH_SIZE: '7' },
      });
      try {
        const account = await anAccount(t).build();
        const due = await Promise.all(Array.from({ length: 20 }, () => create(account.liveKey)));
        await t.dataSource.query(
          `UPDATE listings SET expires_at = now() - interval '1 second' WHERE id = ANY($1)`,
          [due.map((l) => l.id)],
        );
        expect(await small.app.get(ExpiryService).sweep()).toBe(20);
        expect(await small.app.get(ExpiryService).sweep()).toBe(0);
      } finally {
        await small.close();
      }
    });
  });
});
