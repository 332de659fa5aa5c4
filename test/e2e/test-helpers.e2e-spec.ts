import { randomUUID } from 'node:crypto';
import { payloadProblems } from '../../src/events/event-types';
import { expectError, fieldsOf } from '../support/envelope';
import { anAccount, as, createKey, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';
import { eventually, expectSignedWebhook, WebhookReceiver } from '../support/webhook-receiver';
import { registerEndpoint } from '../support/webhooks';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HELPERS = ['publish', 'expire', 'messages', 'favorites'] as const;
const helper = (id: string, name: string) => `/v1/test-helpers/listings/${id}/${name}`;

/** The test-mode sandbox: what buyers, time and the marketplace do, on a test key's listings. */
describe('Test-mode sandbox helpers', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [t, receiver] = await Promise.all([
      createTestApp({ env: { RATE_LIMIT_WRITE_PER_MIN: '1000' } }),
      WebhookReceiver.start(),
    ]);
  });
  afterAll(() => Promise.all([t.close(), receiver.close()]));

  /** An account with a test-mode endpoint at `/<name>-test` and a live one at `/<name>-live`. */
  const seller = async (name: string) => {
    const account = await anAccount(t).build();
    const test = await registerEndpoint(t, account.testKey, receiver, `/${name}-test`);
    const live = await registerEndpoint(t, account.liveKey, receiver, `/${name}-live`);
    return { account, test, live };
  };
  const createWith = async (key: string, externalId?: string) => {
    const body = externalId ? aListing().withExternalId(externalId).build() : aListing().build();
    return (await as(t, key).post('/v1/listings').send(body).expect(201)).body.data;
  };
  const draftOf = (account: TestAccount, externalId?: string) =>
    createWith(account.testKey, externalId);
  const published = async (account: TestAccount) => {
    const draft = await draftOf(account);
    return (await as(t, account.testKey).post(helper(draft.id, 'publish')).expect(200)).body.data;
  };

  /** The delivery of `event` about listing `id` at `path`, checked as a receiver would. */
  const delivered = async (
    path: string,
    secret: string,
    id: string,
    event: string,
    nth = 1,
  ): Promise<Record<string, unknown>> => {
    const matching = () =>
      receiver.at(path).filter((r) => r.body.data.id === id && r.body.event === event);
    await eventually(
      () => matching().length >= nth,
      15_000,
      () => `no ${event} #${nth} for ${id} at ${path}`,
    );
    const request = matching()[nth - 1];
    expectSignedWebhook(request, secret);
    expect(payloadProblems(event, request.body.data)).toEqual([]);
    return request.body.data;
  };

  /** Every delivery an event gets is written at once: once it arrived somewhere, this is final. */
  const liveHistory = async (account: TestAccount, endpointId: string) =>
    (await as(t, account.liveKey).get(`/v1/webhooks/${endpointId}/deliveries`).expect(200)).body
      .data;

  describe('publish', () => {
    it('makes a DRAFT ACTIVE as a live create would, still test mode, with listing.updated to the test endpoint only', async () => {
      const { account, test, live } = await seller('publish');
      const draft = await draftOf(account, 'sandbox-1');
      expect(draft).toMatchObject({ status: 'DRAFT', publishedAt: null, expiresAt: null });

      const res = await as(t, account.testKey).post(helper(draft.id, 'publish')).expect(200);
      const listing = res.body.data;
      expect(listing).toMatchObject({
        id: draft.id,
        status: 'ACTIVE',
        livemode: false,
        publishedAt: expect.any(String),
        expiresAt: expect.any(String),
      });
      // Valid as long as a live create's listing is.
      const liveListing = await createWith(account.liveKey);
      const validity = (l: { publishedAt: string; expiresAt: string }) =>
        Date.parse(l.expiresAt) - Date.parse(l.publishedAt);
      expect(validity(listing)).toBe(validity(liveListing));
      expect(Date.parse(listing.updatedAt)).toBeGreaterThan(Date.parse(draft.updatedAt));
      expect(
        (await as(t, account.testKey).get(`/v1/listings/${draft.id}`).expect(200)).body.data,
      ).toEqual(listing);

      expect(await delivered(test.path, test.secret, draft.id, 'listing.updated')).toEqual({
        id: draft.id,
        externalId: 'sandbox-1',
        livemode: false,
        status: 'ACTIVE',
        updatedAt: listing.updatedAt,
        changedFields: ['status', 'publishedAt', 'expiresAt'],
      });
      await delivered(live.path, live.secret, liveListing.id, 'listing.created');
      const liveEvents = (await liveHistory(account, live.id)).map(
        (d: { event: string }) => d.event,
      );
      expect(liveEvents).toEqual(['listing.created']);
      expect(receiver.at(live.path).map((r) => r.body.data.id)).toEqual([liveListing.id]);
    });

    it('after publish, sold and renew work with the test key as in live mode', async () => {
      const { account, test } = await seller('after-publish');
      const key = as(t, account.testKey);
      const drafts = [await draftOf(account), await draftOf(account)];
      // Before: a DRAFT can be neither sold nor renewed.
      for (const action of ['sold', 'renew']) {
        const refused = await key.post(`/v1/listings/${drafts[0].id}/${action}`);
        expectError(refused, 400, 'VALIDATION_ERROR');
        expect(fieldsOf(refused)).toEqual(['status']);
      }
      for (const d of drafts) await key.post(helper(d.id, 'publish')).expect(200);

      const sold = (await key.post(`/v1/listings/${drafts[0].id}/sold`).expect(200)).body.data;
      expect(sold).toMatchObject({ status: 'SOLD', livemode: false, soldAt: expect.any(String) });
      expect(await delivered(test.path, test.secret, sold.id, 'listing.sold')).toEqual({
        id: sold.id,
        externalId: null,
        livemode: false,
        soldAt: sold.soldAt,
      });

      const before = (await key.get(`/v1/listings/${drafts[1].id}`).expect(200)).body.data;
      const renewed = (await key.post(`/v1/listings/${drafts[1].id}/renew`).expect(200)).body.data;
      expect(renewed.status).toBe('ACTIVE');
      expect(Date.parse(renewed.expiresAt)).toBeGreaterThan(Date.parse(before.expiresAt));
      const updates = [1, 2].map((nth) =>
        delivered(test.path, test.secret, renewed.id, 'listing.updated', nth),
      );
      expect((await updates[1]).changedFields).toEqual(['expiresAt']);
      expect((await updates[0]).changedFields).toEqual(['status', 'publishedAt', 'expiresAt']);
    });

    it('refuses a listing that is not a DRAFT: 400 on status', async () => {
      const { account } = await seller('publish-state');
      const active = await published(account);
      const res = await as(t, account.testKey).post(helper(active.id, 'publish'));
      expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([
        { field: 'status', message: 'Cannot publish a listing in state ACTIVE.' },
      ]);
    });
  });

  describe('expire', () => {
    it('expires an ACTIVE listing now, with listing.expired, and renew brings it back', async () => {
      const { account, test } = await seller('expire');
      const key = as(t, account.testKey);
      const active = await published(account);

      const expired = (await key.post(helper(active.id, 'expire')).expect(200)).body.data;
      expect(expired).toMatchObject({ id: active.id, status: 'EXPIRED', livemode: false });
      // Its validity ran out now, as if the sweep had found it due: expiresAt is expiredAt.
      expect(Date.parse(expired.expiresAt)).toBeLessThan(Date.parse(active.expiresAt));
      expect(await delivered(test.path, test.secret, active.id, 'listing.expired')).toEqual({
        id: active.id,
        externalId: null,
        livemode: false,
        expiredAt: expired.expiresAt,
      });

      const refused = await key.post(helper(active.id, 'expire'));
      expect(expectError(refused, 400, 'VALIDATION_ERROR').details).toEqual([
        { field: 'status', message: 'Cannot expire a listing in state EXPIRED.' },
      ]);

      const renewed = (await key.post(`/v1/listings/${active.id}/renew`).expect(200)).body.data;
      expect(renewed.status).toBe('ACTIVE');
      const update = await delivered(test.path, test.secret, active.id, 'listing.updated', 2);
      expect(update.changedFields).toEqual(['status', 'expiresAt']);
    });

    it('refuses a DRAFT: 400 on status', async () => {
      const { account } = await seller('expire-draft');
      const draft = await draftOf(account);
      const res = await as(t, account.testKey).post(helper(draft.id, 'expire'));
      expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([
        { field: 'status', message: 'Cannot expire a listing in state DRAFT.' },
      ]);
    });
  });

  describe('messages and favorites', () => {
    it('delivers message.received, with a generated messageId when none is sent; the listing is unchanged', async () => {
      const { account, test } = await seller('messages');
      const key = as(t, account.testKey);
      const active = await published(account);

      const bare = await key.post(helper(active.id, 'messages')).send({}).expect(200);
      expect(bare.body.data).toEqual(active);
      await key
        .post(helper(active.id, 'messages'))
        .send({ messageId: 'm-1', preview: 'Finns den kvar?' })
        .expect(200);

      const first = await delivered(test.path, test.secret, active.id, 'message.received', 1);
      const second = await delivered(test.path, test.secret, active.id, 'message.received', 2);
      const given = [first, second].find((e) => e.messageId === 'm-1');
      const generated = [first, second].find((e) => e.messageId !== 'm-1');
      expect(generated).toEqual({
        id: active.id,
        externalId: null,
        livemode: false,
        messageId: expect.stringMatching(UUID),
        receivedAt: expect.any(String),
        preview: null,
      });
      expect(given).toMatchObject({
        messageId: 'm-1',
        preview: 'Finns den kvar?',
        livemode: false,
      });
    });

    it('delivers listing.favorited, with or without a userRef', async () => {
      const { account, test } = await seller('favorites');
      const key = as(t, account.testKey);
      const active = await published(account);

      expect((await key.post(helper(active.id, 'favorites')).expect(200)).body.data).toEqual(
        active,
      );
      await key.post(helper(active.id, 'favorites')).send({ userRef: 'u-7' }).expect(200);

      const events = [
        await delivered(test.path, test.secret, active.id, 'listing.favorited', 1),
        await delivered(test.path, test.secret, active.id, 'listing.favorited', 2),
      ];
      // Deliveries of different events may arrive in any order.
      const byUser = (ref: string | null) => events.find((e) => e.userRef === ref);
      for (const ref of [null, 'u-7']) {
        expect(byUser(ref)).toEqual({
          id: active.id,
          externalId: null,
          livemode: false,
          favoritedAt: expect.any(String),
          userRef: ref,
        });
      }
    });

    it.each([
      ['messages', 'receive a message on'],
      ['favorites', 'favorite'],
    ])('%s refuse a listing that is not ACTIVE: 400 on status', async (name, action) => {
      const { account } = await seller(`${name}-state`);
      const key = as(t, account.testKey);
      const draft = await draftOf(account);
      const sold = await published(account);
      await key.post(`/v1/listings/${sold.id}/sold`).expect(200);
      for (const [l, status] of [
        [draft, 'DRAFT'],
        [sold, 'SOLD'],
      ] as const) {
        const res = await key.post(helper(l.id, name)).send({});
        expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([
          { field: 'status', message: `Cannot ${action} a listing in state ${status}.` },
        ]);
      }
    });

    it.each([
      ['messages', { messageId: '' }, 'messageId'],
      ['messages', { messageId: 'm'.repeat(101) }, 'messageId'],
      ['messages', { preview: '' }, 'preview'],
      ['messages', { preview: 'p'.repeat(501) }, 'preview'],
      ['messages', { preview: 'a\u0000b' }, 'preview'],
      ['messages', { preview: 42 }, 'preview'],
      ['messages', { sender: 'x' }, 'sender'],
      ['favorites', { userRef: '' }, 'userRef'],
      ['favorites', { userRef: 'u'.repeat(201) }, 'userRef'],
      ['favorites', { userRef: 'a\u202Eb' }, 'userRef'],
      ['favorites', { note: 'x' }, 'note'],
    ])('%s refuses %j: 400 on %s', async (name, body, field) => {
      const { account } = await seller(`${name}-dto-${field}`);
      const active = await published(account);
      const res = await as(t, account.testKey).post(helper(active.id, name)).send(body);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual([field]);
    });

    it('accepts the longest values', async () => {
      const { account, test } = await seller('longest');
      const active = await published(account);
      const key = as(t, account.testKey);
      const message = { messageId: 'm'.repeat(100), preview: 'p'.repeat(500) };
      await key.post(helper(active.id, 'messages')).send(message).expect(200);
      await key
        .post(helper(active.id, 'favorites'))
        .send({ userRef: 'u'.repeat(200) })
        .expect(200);
      expect(await delivered(test.path, test.secret, active.id, 'message.received')).toMatchObject(
        message,
      );
      expect(
        (await delivered(test.path, test.secret, active.id, 'listing.favorited')).userRef,
      ).toBe('u'.repeat(200));
    });
  });

  describe('who may use them', () => {
    it('a live key gets 404 on every helper, as on a route that does not exist, and nothing happens', async () => {
      const { account, live } = await seller('live-key');
      const draft = await draftOf(account);
      const liveListing = await createWith(account.liveKey);
      const unknown = await as(t, account.liveKey).post(
        `/v1/test-helpers/listings/${liveListing.id}/nothing`,
      );
      expectError(unknown, 404, 'NOT_FOUND');
      for (const name of HELPERS) {
        for (const id of [liveListing.id, draft.id, 'not-a-uuid']) {
          // Even a body the helper would refuse: the route is not there to validate it.
          const res = await as(t, account.liveKey).post(helper(id, name)).send({ unknownField: 1 });
          expect(expectError(res, 404, 'NOT_FOUND').message).toBe(unknown.body.error.message);
          expect(res.body.error.details).toBeUndefined();
          // Answered before the rate limiter, as an unknown route is.
          expect(res.headers['x-ratelimit-limit']).toBeUndefined();
        }
      }
      // Nor is a body read first: malformed, of another type or too large, it is never parsed.
      const url = helper(liveListing.id, 'publish');
      for (const res of [
        await as(t, account.liveKey).post(url).set('Content-Type', 'application/json').send('{'),
        await as(t, account.liveKey).post(url).set('Content-Type', 'text/plain').send('x'),
        await as(t, account.liveKey)
          .post(url)
          .send({ note: 'x'.repeat(3 * 1024 * 1024) }),
      ]) {
        expect(expectError(res, 404, 'NOT_FOUND').details).toBeUndefined();
      }
      // A live key without listings:write gets the same 404, not a 403.
      const readOnly = await createKey(t, account.id, { kind: 'live', scopes: ['listings:read'] });
      expectError(await as(t, readOnly).post(helper(liveListing.id, 'publish')), 404, 'NOT_FOUND');

      expect(
        (await as(t, account.testKey).get(`/v1/listings/${draft.id}`).expect(200)).body.data.status,
      ).toBe('DRAFT');
      expect(
        (await as(t, account.liveKey).get(`/v1/listings/${liveListing.id}`).expect(200)).body.data,
      ).toEqual(liveListing);
      await delivered(live.path, live.secret, liveListing.id, 'listing.created');
      expect((await liveHistory(account, live.id)).map((d: { event: string }) => d.event)).toEqual([
        'listing.created',
      ]);
    });

    it("another account's listing, an unknown id or a malformed one: 404 on every helper", async () => {
      const { account } = await seller('owner');
      const other = await anAccount(t).build();
      const draft = await draftOf(account);
      const active = await published(account);
      for (const name of HELPERS) {
        for (const id of [draft.id, active.id, randomUUID(), 'not-a-uuid']) {
          expectError(await as(t, other.testKey).post(helper(id, name)).send({}), 404, 'NOT_FOUND');
        }
      }
      const key = as(t, account.testKey);
      expect((await key.get(`/v1/listings/${draft.id}`).expect(200)).body.data.status).toBe(
        'DRAFT',
      );
      expect((await key.get(`/v1/listings/${active.id}`).expect(200)).body.data).toEqual(active);
    });

    it('a test key without listings:write gets 403', async () => {
      const { account } = await seller('scope');
      const draft = await draftOf(account);
      const readOnly = await createKey(t, account.id, { kind: 'test', scopes: ['listings:read'] });
      for (const name of HELPERS)
        expectError(await as(t, readOnly).post(helper(draft.id, name)).send({}), 403, 'FORBIDDEN');
    });

    it('a published test listing stays test mode: invisible to live keys and to other accounts', async () => {
      const { account } = await seller('invisible');
      const other = await anAccount(t).build();
      const active = await published(account);
      expect(active.livemode).toBe(false);
      for (const key of [account.liveKey, other.liveKey, other.testKey]) {
        expectError(await as(t, key).get(`/v1/listings/${active.id}`), 404, 'NOT_FOUND');
        const page = (await as(t, key).get('/v1/listings?status=ACTIVE').expect(200)).body;
        expect(page.data.map((l: { id: string }) => l.id)).not.toContain(active.id);
      }
      const own = (await as(t, account.testKey).get('/v1/listings?status=ACTIVE').expect(200)).body;
      expect(own.data).toEqual([expect.objectContaining({ id: active.id, livemode: false })]);
    });
  });
});
