import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import type { QueryRunner } from 'typeorm';
import { WebhookPreviousSecrets1763960000000 } from '../../src/platform/database/migrations/1763960000000-WebhookPreviousSecrets';
import { emitEvent } from '../support/events';
import { expectError, fieldsOf } from '../support/envelope';
import { anAccount, as, TestAccount } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestDatabase, databaseUrl } from '../support/test-database';
import {
  eventually,
  expectSignedWebhook,
  ReceivedWebhook,
  WebhookReceiver,
} from '../support/webhook-receiver';
import { RegisteredEndpoint as Endpoint, registerEndpoint } from '../support/webhooks';

/** Ten attempts, 50 ms apart: a delivery that always fails ends in about half a second. */
const FAST_SCHEDULE = Array(9).fill('50').join(',');

interface Delivery {
  deliveryId: string;
  eventId: string | null;
  event: string;
  status: string;
  attempts: number;
}

describe('Webhook redelivery: detail, retry, recover, rotation', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [t, receiver] = await Promise.all([
      createTestApp({ env: { WEBHOOK_RETRY_SCHEDULE: FAST_SCHEDULE, WEBHOOK_TIMEOUT_MS: '1000' } }),
      WebhookReceiver.start(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([t.close(), receiver.close()]);
  });

  let paths = 0;
  const register = (account: TestAccount) =>
    registerEndpoint(t, account.liveKey, receiver, `/redelivery/${++paths}`);

  const api = (account: TestAccount) => as(t, account.liveKey);

  async function deliveries(
    account: TestAccount,
    endpoint: Endpoint,
    query = '',
  ): Promise<Delivery[]> {
    const res = await api(account)
      .get(`/v1/webhooks/${endpoint.id}/deliveries?limit=100${query}`)
      .expect(200);
    return res.body.data;
  }

  async function settled(
    account: TestAccount,
    endpoint: Endpoint,
    count: number,
  ): Promise<Delivery[]> {
    await eventually(async () => {
      const all = await deliveries(account, endpoint);
      return all.length === count && all.every((d) => d.status !== 'pending');
    });
    return deliveries(account, endpoint);
  }

  const setActive = (account: TestAccount, endpoint: Endpoint, isActive: boolean) =>
    api(account).patch(`/v1/webhooks/${endpoint.id}`).send({ isActive }).expect(200);

  describe('delivery detail and list filters', () => {
    it('shows the record with its eventId and every attempt, oldest first', async () => {
      const account = await anAccount(t).build();
      const endpoint = await register(account);
      receiver.replyWith(endpoint.path, { status: 500, body: 'boom' }, { status: 503 });
      const sold = await emitEvent(t, account.id, 'listing.sold');
      const [delivery] = await settled(account, endpoint, 1);
      const [{ id: eventId }] = await t.dataSource.query(
        `SELECT id FROM outbox_events WHERE data->>'id' = $1`,
        [sold.id],
      );
      const res = await api(account)
        .get(`/v1/webhooks/${endpoint.id}/deliveries/${delivery.deliveryId}`)
        .expect(200);
      expect(res.body.data).toMatchObject({
        deliveryId: delivery.deliveryId,
        eventId,
        status: 'succeeded',
        attempts: 3,
      });
      expect(res.body.data.attemptLog).toEqual([
        {
          attemptedAt: expect.any(String),
          responseStatus: 500,
          error: 'HTTP 500',
          durationMs: expect.any(Number),
          manual: false,
        },
        {
          attemptedAt: expect.any(String),
          responseStatus: 503,
          error: 'HTTP 503',
          durationMs: expect.any(Number),
          manual: false,
        },
        {
          attemptedAt: expect.any(String),
          responseStatus: 200,
          error: null,
          durationMs: expect.any(Number),
          manual: false,
        },
      ]);
      const times = res.body.data.attemptLog.map((a: { attemptedAt: string }) => a.attemptedAt);
      expect(times).toEqual([...times].sort());
      expect(receiver.at(endpoint.path).every((r) => r.body.eventId === eventId)).toBe(true);
    });

    it('filters the list by status and event; unknown values are 400 naming them', async () => {
      const account = await anAccount(t).build();
      const endpoint = await register(account);
      receiver.replyWith(endpoint.path, ...Array(10).fill(500));
      await emitEvent(t, account.id, 'listing.sold');
      await settled(account, endpoint, 1);
      // A delivery that failed its whole schedule disabled the endpoint.
      await setActive(account, endpoint, true);
      await emitEvent(t, account.id, 'listing.created');
      await settled(account, endpoint, 2);
      expect((await deliveries(account, endpoint, '&status=failed')).map((d) => d.event)).toEqual([
        'listing.sold',
      ]);
      expect(
        (await deliveries(account, endpoint, '&status=succeeded')).map((d) => d.event),
      ).toEqual(['listing.created']);
      expect(await deliveries(account, endpoint, '&event=listing.expired')).toEqual([]);
      expect(
        (await deliveries(account, endpoint, '&event=listing.sold')).map((d) => d.status),
      ).toEqual(['failed']);
      for (const [query, field] of [
        ['status=lost', 'status'],
        ['event=listing.bogus', 'event'],
      ]) {
        const res = await api(account).get(`/v1/webhooks/${endpoint.id}/deliveries?${query}`);
        expectError(res, 400, 'VALIDATION_ERROR');
        expect(fieldsOf(res)).toEqual([field]);
      }
    });

    it('answers 404 for another endpoint’s delivery, another account’s, or a malformed id', async () => {
      const account = await anAccount(t).build();
      const [a, b] = [await register(account), await register(account)];
      await emitEvent(t, account.id, 'listing.sold');
      const [delivery] = await settled(account, a, 1);
      await settled(account, b, 1);
      const other = await anAccount(t).build();
      for (const res of [
        await api(account).get(
          `/v1/webhooks/${b.id}/deliveries/${(await deliveries(account, a))[0].deliveryId}x`,
        ),
        await api(other).get(`/v1/webhooks/${a.id}/deliveries/${delivery.deliveryId}`),
        await api(account).post(`/v1/webhooks/${b.id}/deliveries/${delivery.deliveryId}/retry`),
        await api(other).post(`/v1/webhooks/${a.id}/deliveries/${delivery.deliveryId}/retry`),
      ]) {
        expectError(res, 404, 'NOT_FOUND');
      }
      expectError(
        await api(account).get(`/v1/webhooks/${b.id}/deliveries/${delivery.deliveryId}`),
        404,
        'NOT_FOUND',
      );
    });
  });

  describe('manual retry', () => {
    it('sends a succeeded delivery again: same deliveryId and body, fresh signature, 202', async () => {
      const account = await anAccount(t).build();
      const endpoint = await register(account);
      await emitEvent(t, account.id, 'listing.sold');
      const [delivery] = await settled(account, endpoint, 1);
      const res = await api(account)
        .post(`/v1/webhooks/${endpoint.id}/deliveries/${delivery.deliveryId}/retry`)
        .expect(202);
      expect(res.body.data).toMatchObject({ deliveryId: delivery.deliveryId, status: 'succeeded' });
      const [first, again] = await receiver.waitFor(endpoint.path, 2);
      expect(again.rawBody).toBe(first.rawBody);
      expect(again.headers['webhook-id']).toBe(delivery.deliveryId);
      expectSignedWebhook(again, endpoint.secret);
      const detail = await api(account)
        .get(`/v1/webhooks/${endpoint.id}/deliveries/${delivery.deliveryId}`)
        .expect(200);
      expect(detail.body.data.attemptLog.map((a: { manual: boolean }) => a.manual)).toEqual([
        false,
        true,
      ]);
      expect(detail.body.data.attempts).toBe(1);
    });

    it('a failed retry does not count toward auto-disable; a successful one ends a failed delivery as succeeded', async () => {
      const account = await anAccount(t).build();
      const endpoint = await register(account);
      receiver.replyWith(endpoint.path, ...Array(10).fill(500));
      await emitEvent(t, account.id, 'listing.sold');
      const [failed] = await settled(account, endpoint, 1);
      expect(failed.status).toBe('failed');
      await setActive(account, endpoint, true);

      receiver.replyWith(endpoint.path, 500);
      await api(account)
        .post(`/v1/webhooks/${endpoint.id}/deliveries/${failed.deliveryId}/retry`)
        .expect(202);
      const detail = () =>
        api(account).get(`/v1/webhooks/${endpoint.id}/deliveries/${failed.deliveryId}`);
      await eventually(async () => (await detail()).body.data.attemptLog.length === 11);
      const after = (await api(account).get('/v1/webhooks').expect(200)).body.data[0];
      expect(after).toMatchObject({ isActive: true, consecutiveFailures: 0 });
      expect((await detail()).body.data).toMatchObject({ status: 'failed', attempts: 10 });

      await api(account)
        .post(`/v1/webhooks/${endpoint.id}/deliveries/${failed.deliveryId}/retry`)
        .expect(202);
      await eventually(async () => (await detail()).body.data.status === 'succeeded');
      const log = (await detail()).body.data.attemptLog;
      expect(
        log
          .slice(-2)
          .map((a: { manual: boolean; responseStatus: number }) => [a.manual, a.responseStatus]),
      ).toEqual([
        [true, 500],
        [true, 200],
      ]);
    });

    it('a manual retry of an old success does not keep a failing endpoint from being disabled', async () => {
      const account = await anAccount(t).build();
      const endpoint = await register(account);
      await emitEvent(t, account.id, 'listing.sold');
      const [old] = await settled(account, endpoint, 1);
      expect(old.status).toBe('succeeded');

      // The next event's first attempt is held at the receiver; meanwhile the old delivery is
      // retried by hand, and fails. Then every remaining attempt of the new delivery fails.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      receiver.replyWith(endpoint.path, { status: 500, after: held }, 500);
      receiver.byDefault(endpoint.path, 500);
      await emitEvent(t, account.id, 'listing.expired');
      await receiver.waitFor(endpoint.path, 2); // the old one and the held first attempt
      await api(account)
        .post(`/v1/webhooks/${endpoint.id}/deliveries/${old.deliveryId}/retry`)
        .expect(202);
      const oldDetail = () =>
        api(account).get(`/v1/webhooks/${endpoint.id}/deliveries/${old.deliveryId}`);
      await eventually(async () => (await oldDetail()).body.data.attemptLog.length === 2);
      release();

      // The failing delivery used up its schedule with no scheduled success since it began.
      await eventually(async () => {
        const [current] = (await api(account).get('/v1/webhooks').expect(200)).body.data;
        return current.isActive === false;
      });
    });

    it('refuses a retry on a disabled endpoint with 400 on isActive', async () => {
      const account = await anAccount(t).build();
      const endpoint = await register(account);
      await emitEvent(t, account.id, 'listing.sold');
      const [delivery] = await settled(account, endpoint, 1);
      await setActive(account, endpoint, false);
      const res = await api(account).post(
        `/v1/webhooks/${endpoint.id}/deliveries/${delivery.deliveryId}/retry`,
      );
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual(['isActive']);
    });
  });

  describe('recover', () => {
    const recover = (account: TestAccount, endpoint: Endpoint, since: string) =>
      api(account).post(`/v1/webhooks/${endpoint.id}/recover`).send({ since });

    it('brings back failed deliveries and the events missed while disabled, once, after re-enabling', async () => {
      const account = await anAccount(t).build();
      const endpoint = await register(account);
      const since = new Date(Date.now() - 1000).toISOString();
      receiver.replyWith(endpoint.path, ...Array(10).fill(500));
      await emitEvent(t, account.id, 'listing.sold');
      const [failed] = await settled(account, endpoint, 1);
      expect(failed.status).toBe('failed');
      // The delivery failed its whole schedule: the endpoint is disabled now.
      expect((await api(account).get('/v1/webhooks').expect(200)).body.data[0].isActive).toBe(
        false,
      );
      const missed = await emitEvent(t, account.id, 'listing.expired');
      // Disabled: the event is relayed and fanned out, and nothing is made for this endpoint.
      await eventually(async () => {
        const [row] = await t.dataSource.query(
          `SELECT fanned_out_at FROM outbox_events WHERE data->>'id' = $1`,
          [missed.id],
        );
        return row?.fanned_out_at != null;
      });
      expect(await deliveries(account, endpoint)).toHaveLength(1);
      expect(fieldsOf(await recover(account, endpoint, since))).toEqual(['isActive']);

      await setActive(account, endpoint, true);
      const before = receiver.at(endpoint.path).length;
      const res = await recover(account, endpoint, since).expect(202);
      expect(res.body.data).toEqual({ queued: 2 });
      const all = await settled(account, endpoint, 2);
      expect(all.every((d) => d.status === 'succeeded')).toBe(true);
      const redelivered = receiver.at(endpoint.path).slice(before);
      expect(redelivered.map((r) => r.body.event).sort()).toEqual([
        'listing.expired',
        'listing.sold',
      ]);
      expect(redelivered.find((r) => r.body.event === 'listing.sold')!.body.deliveryId).toBe(
        failed.deliveryId,
      );
      for (const request of redelivered) expectSignedWebhook(request, endpoint.secret);
      // Everything has a succeeded delivery now: nothing more to recover.
      expect((await recover(account, endpoint, since).expect(202)).body.data).toEqual({
        queued: 0,
      });
    });

    it('queues each event once when recover calls overlap', async () => {
      const account = await anAccount(t).build();
      const endpoint = await register(account);
      const since = new Date(Date.now() - 1000).toISOString();
      await setActive(account, endpoint, false);
      const missed = [];
      for (let i = 0; i < 30; i++) missed.push(await emitEvent(t, account.id, 'listing.updated'));
      await eventually(async () => {
        const [{ n }] = await t.dataSource.query(
          `SELECT count(*)::int AS n FROM outbox_events WHERE account_id = $1 AND fanned_out_at IS NOT NULL`,
          [account.id],
        );
        return n === 30;
      });
      await setActive(account, endpoint, true);
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => recover(account, endpoint, since)),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(6).fill(202));
      expect(answers.reduce((sum, a) => sum + a.body.data.queued, 0)).toBe(30);
      await settled(account, endpoint, 30);
      const received = await receiver.waitFor(endpoint.path, 30);
      const ids = received.map((r) => r.body.data.id);
      expect(new Set(ids).size).toBe(30);
      expect(received).toHaveLength(30);
      expect(ids.sort()).toEqual(missed.map((m) => m.id).sort());
    });

    it('restarts each failed delivery once when recover calls overlap', async () => {
      const account = await anAccount(t).build();
      const endpoint = await register(account);
      const since = new Date(Date.now() - 1000).toISOString();
      receiver.byDefault(endpoint.path, 500);
      const events = [];
      for (let i = 0; i < 12; i++) events.push(await emitEvent(t, account.id, 'listing.updated'));
      const failed = await settled(account, endpoint, 12);
      expect(failed.every((d) => d.status === 'failed')).toBe(true);
      await setActive(account, endpoint, true); // whether or not the failures disabled it
      receiver.byDefault(endpoint.path, 200);
      const before = receiver.at(endpoint.path).length;

      const answers = await Promise.all(
        Array.from({ length: 6 }, () => recover(account, endpoint, since)),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(6).fill(202));
      expect(answers.reduce((sum, a) => sum + a.body.data.queued, 0)).toBe(12);
      const delivered = await settled(account, endpoint, 12);
      expect(delivered.every((d) => d.status === 'succeeded')).toBe(true);
      // Same deliveries, each sent once more: no event restarted twice.
      expect(delivered.map((d) => d.deliveryId).sort()).toEqual(
        failed.map((d) => d.deliveryId).sort(),
      );
      const again = receiver.at(endpoint.path).slice(before);
      expect(again).toHaveLength(12);
      expect(again.map((r) => r.body.data.id).sort()).toEqual(events.map((e) => e.id).sort());
    });

    it('recovers nothing from before the endpoint existed', async () => {
      const account = await anAccount(t).build();
      await emitEvent(t, account.id, 'listing.sold');
      await eventually(async () => {
        const [{ n }] = await t.dataSource.query(
          `SELECT count(*)::int AS n FROM outbox_events WHERE account_id = $1 AND relayed_at IS NOT NULL`,
          [account.id],
        );
        return n === 1;
      });
      const endpoint = await register(account);
      const since = new Date(Date.now() - 3_600_000).toISOString();
      expect((await recover(account, endpoint, since).expect(202)).body.data).toEqual({
        queued: 0,
      });
    });

    it.each([
      [{ since: 'yesterday' }, 'since'],
      [{}, 'since'],
      [{ since: new Date(Date.now() - 31 * 86_400_000).toISOString() }, 'since'],
      [{ since: new Date().toISOString(), extra: 1 }, 'extra'],
    ])('answers %j with 400 naming %s', async (body, field) => {
      const account = await anAccount(t).build();
      const endpoint = await register(account);
      const res = await api(account).post(`/v1/webhooks/${endpoint.id}/recover`).send(body);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual([field]);
    });
  });

  describe('secret rotation', () => {
    const rotate = (account: TestAccount, endpoint: Endpoint, body: object = {}) =>
      api(account).post(`/v1/webhooks/${endpoint.id}/rotate-secret`).send(body);

    it('shows the new secret once and signs with both, new first, until the old one expires', async () => {
      const account = await anAccount(t).build();
      const endpoint = await register(account);
      const res = await rotate(account, endpoint).expect(200);
      const newSecret: string = res.body.data.secret;
      expect(newSecret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
      expect(newSecret).not.toBe(endpoint.secret);
      expect(res.body.data.id).toBe(endpoint.id);
      const listed = (await api(account).get('/v1/webhooks').expect(200)).body.data[0];
      expect(listed.secret).toBeUndefined();

      await emitEvent(t, account.id, 'listing.sold');
      const [dual] = await receiver.waitFor(endpoint.path, 1);
      expectSignedWebhook(dual, newSecret, endpoint.secret);

      // Past its expiry the old secret signs no more.
      await t.dataSource.query(
        `UPDATE webhook_endpoints SET previous_secrets = (
           SELECT jsonb_agg(p || '{"expiresAt": "2000-01-01T00:00:00.000Z"}')
           FROM jsonb_array_elements(previous_secrets) p)
         WHERE id = $1`,
        [endpoint.id],
      );
      await emitEvent(t, account.id, 'listing.sold');
      const [, single] = await receiver.waitFor(endpoint.path, 2);
      expectSignedWebhook(single, newSecret);
    });

    it('with 0 hours the old secret stops at once; the test delivery signs the same way', async () => {
      const account = await anAccount(t).build();
      const endpoint = await register(account);
      const { secret } = (
        await rotate(account, endpoint, { expireCurrentAfterHours: 0 }).expect(200)
      ).body.data;
      await api(account).post(`/v1/webhooks/${endpoint.id}/test`).expect(200);
      const [request] = await receiver.waitFor(endpoint.path, 1);
      expectSignedWebhook(request, secret);

      const twice = (await rotate(account, endpoint, { expireCurrentAfterHours: 72 }).expect(200))
        .body.data;
      await api(account).post(`/v1/webhooks/${endpoint.id}/test`).expect(200);
      const [, second] = await receiver.waitFor(endpoint.path, 2);
      expectSignedWebhook(second, twice.secret, secret);
    });

    /** Every signature header checked with the standardwebhooks package, one secret at a time. */
    const verifies = (request: ReceivedWebhook, secret: string) => {
      try {
        new Webhook(secret).verify(request.rawBody, request.headers as Record<string, string>);
        return true;
      } catch {
        return false;
      }
    };

    it('concurrent rotations end no grace early: the original and every returned secret verify', async () => {
      const account = await anAccount(t).build();
      const endpoint = await register(account);
      const answers = await Promise.all([1, 2, 3].map(() => rotate(account, endpoint)));
      expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
      const returned: string[] = answers.map((res) => res.body.data.secret);
      expect(new Set(returned).size).toBe(3);

      // The test delivery (the API's lookup) and an event (the worker's) sign alike.
      await api(account).post(`/v1/webhooks/${endpoint.id}/test`).expect(200);
      await emitEvent(t, account.id, 'listing.sold');
      const requests = await receiver.waitFor(endpoint.path, 2);
      for (const request of requests) {
        expect((request.headers['webhook-signature'] as string).split(' ')).toHaveLength(4);
        for (const secret of [endpoint.secret, ...returned]) {
          expect({ secret, verifies: verifies(request, secret) }).toEqual({
            secret,
            verifies: true,
          });
        }
      }
    });

    it('keeps the 3 newest replaced secrets: after 4 rotations the original signs no more', async () => {
      const account = await anAccount(t).build();
      const endpoint = await register(account);
      const secrets = [endpoint.secret];
      for (let i = 0; i < 4; i++) {
        const hours = { expireCurrentAfterHours: 72 - i };
        secrets.push((await rotate(account, endpoint, hours).expect(200)).body.data.secret);
      }
      await emitEvent(t, account.id, 'listing.sold');
      const [request] = await receiver.waitFor(endpoint.path, 1);
      expectSignedWebhook(request, secrets[4], secrets[3], secrets[2], secrets[1]);
      expect(verifies(request, endpoint.secret)).toBe(false);
    });

    it('the migration carries a replaced secret still in its grace over, and no expired one', async () => {
      const client = new Client({ connectionString: databaseUrl(await createTestDatabase()) });
      await client.connect();
      try {
        const runner = { query: (sql: string) => client.query(sql) } as unknown as QueryRunner;
        const migration = new WebhookPreviousSecrets1763960000000();
        await migration.down(runner);
        const {
          rows: [{ id: accountId }],
        } = await client.query(`INSERT INTO accounts (name) VALUES ('Rotated AB') RETURNING id`);
        const expiresAt = new Date(Date.now() + 3_600_000);
        const insert = (previous: string | null, until: Date | null) =>
          client.query(
            `INSERT INTO webhook_endpoints (account_id, livemode, url, secret, previous_secret, previous_secret_expires_at)
             VALUES ($1, true, 'https://example.com/h', 'whsec_now', $2, $3) RETURNING id`,
            [accountId, previous, until],
          );
        const inGrace = (await insert('whsec_old', expiresAt)).rows[0].id;
        const expired = (await insert('whsec_gone', new Date(Date.now() - 1000))).rows[0].id;
        const none = (await insert(null, null)).rows[0].id;
        await migration.up(runner);
        const { rows } = await client.query(
          `SELECT id, previous_secrets FROM webhook_endpoints WHERE account_id = $1`,
          [accountId],
        );
        const stored = new Map(rows.map((row) => [row.id, row.previous_secrets]));
        expect(stored.get(inGrace)).toEqual([
          { secret: 'whsec_old', expiresAt: expiresAt.toISOString() },
        ]);
        expect(stored.get(expired)).toEqual([]);
        expect(stored.get(none)).toEqual([]);
      } finally {
        await client.end();
      }
    });

    it.each([
      [{ expireCurrentAfterHours: 73 }],
      [{ expireCurrentAfterHours: -1 }],
      [{ expireCurrentAfterHours: 1.5 }],
      [{ expireCurrentAfterHours: '24' }],
      [{ expireCurrentAfterHours: null }],
    ])('refuses %j with 400 on expireCurrentAfterHours', async (body) => {
      const account = await anAccount(t).build();
      const endpoint = await register(account);
      const res = await rotate(account, endpoint, body);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual(['expireCurrentAfterHours']);
      // The secret did not change.
      await api(account).post(`/v1/webhooks/${endpoint.id}/test`).expect(200);
      expectSignedWebhook((await receiver.waitFor(endpoint.path, 1))[0], endpoint.secret);
    });

    it('another account’s endpoint is 404', async () => {
      const account = await anAccount(t).build();
      const endpoint = await register(account);
      const other = await anAccount(t).build();
      expectError(await rotate(other, endpoint), 404, 'NOT_FOUND');
    });
  });
});
