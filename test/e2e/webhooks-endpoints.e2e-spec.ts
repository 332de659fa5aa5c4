import { expectError, fieldsOf } from '../support/envelope';
import { anAccount, as, createKey, TestAccount } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';
import { expectSignedWebhook, WebhookReceiver } from '../support/webhook-receiver';

const SECRET = /^whsec_[0-9A-Za-z]{32}$/;
const ENDPOINT_FIELDS = [
  'consecutiveFailures',
  'createdAt',
  'description',
  'disabledAt',
  'events',
  'id',
  'isActive',
  'livemode',
  'updatedAt',
  'url',
];
const DELIVERY_FIELDS = [
  'attempts',
  'createdAt',
  'deliveryId',
  'endpointId',
  'event',
  'eventId',
  'lastAttemptAt',
  'lastError',
  'lastResponseStatus',
  'nextAttemptAt',
  'status',
];

describe('Webhook endpoints', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [t, receiver] = await Promise.all([createTestApp(), WebhookReceiver.start()]);
  });
  afterAll(async () => {
    await Promise.all([t.close(), receiver.close()]);
  });

  const create = (account: TestAccount, body: object) =>
    as(t, account.liveKey).post('/v1/webhooks').send(body);

  it('shows the whsec_ secret once, on creation, and never again', async () => {
    const account = await anAccount(t).build();
    const created = await create(account, {
      url: receiver.url(),
      events: ['listing.sold'],
      description: 'ERP sync',
    }).expect(201);
    const endpoint = created.body.data;
    expect(endpoint.secret).toMatch(SECRET);
    expect(endpoint).toMatchObject({
      url: receiver.url(),
      events: ['listing.sold'],
      description: 'ERP sync',
      isActive: true,
      consecutiveFailures: 0,
      disabledAt: null,
    });

    const list = await as(t, account.liveKey).get('/v1/webhooks').expect(200);
    expect(list.body.data).toHaveLength(1);
    expect(Object.keys(list.body.data[0]).sort()).toEqual(ENDPOINT_FIELDS);
    const patched = await as(t, account.liveKey)
      .patch(`/v1/webhooks/${endpoint.id}`)
      .send({ description: 'ERP' })
      .expect(200);
    const deleted = await as(t, account.liveKey).delete(`/v1/webhooks/${endpoint.id}`).expect(200);
    for (const res of [list, patched, deleted]) {
      expect(JSON.stringify(res.body)).not.toContain(endpoint.secret);
    }
  });

  it('treats omitted or empty events as every event', async () => {
    const account = await anAccount(t).build();
    const omitted = await create(account, { url: receiver.url() }).expect(201);
    const empty = await create(account, { url: receiver.url(), events: [] }).expect(201);
    expect(omitted.body.data.events).toEqual([]);
    expect(empty.body.data.events).toEqual([]);
    // null is not an array, here as on PATCH.
    expect(fieldsOf(await create(account, { url: receiver.url(), events: null }))).toEqual([
      'events',
    ]);
  });

  it('refuses an unknown event name with 400 on events', async () => {
    const account = await anAccount(t).build();
    const res = await create(account, {
      url: receiver.url(),
      events: ['listing.sold', 'listing.exploded'],
    });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(res)).toEqual(['events']);
    expectError(
      await create(account, { url: receiver.url(), events: ['webhook.test'] }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('refuses a 6th endpoint with 400 on url, and accepts one again after a delete', async () => {
    const account = await anAccount(t).build();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await create(account, { url: receiver.url(`/e${i}`) }).expect(201)).body.data.id);
    const sixth = await create(account, { url: receiver.url('/e5') });
    expect(expectError(sixth, 400, 'VALIDATION_ERROR').details).toEqual([
      { field: 'url', message: expect.stringContaining('at most 5') },
    ]);
    await as(t, account.liveKey).delete(`/v1/webhooks/${ids[0]}`).expect(200);
    await create(account, { url: receiver.url('/e5') }).expect(201);
  });

  it('holds the limit of 5 when creates race', async () => {
    const account = await anAccount(t).build();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => create(account, { url: receiver.url(`/race${i}`) })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    expect(results.filter((r) => r.status === 400)).toHaveLength(3);
  });

  it('replays a registration retried with its Idempotency-Key: one endpoint, the same secret', async () => {
    const account = await anAccount(t).build();
    const body = { url: receiver.url('/idem'), events: ['listing.sold'] };
    const keyed = () => create(account, body).set('Idempotency-Key', 'register-1');
    // the first answer lost, the retry sent at once and again later: all the same endpoint
    const [first, racing] = await Promise.all([keyed(), keyed()]);
    const later = await keyed();
    for (const res of [first, racing, later]) expect(res.status).toBe(201);
    const ids = new Set([first, racing, later].map((r) => r.body.data.id));
    const secrets = new Set([first, racing, later].map((r) => r.body.data.secret));
    expect([ids.size, secrets.size]).toEqual([1, 1]);
    expect([first, racing].filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(
      1,
    );
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(later.body.data.secret).toMatch(SECRET);
    const listed = await as(t, account.liveKey).get('/v1/webhooks').expect(200);
    expect(listed.body.data).toHaveLength(1);
    // another body under the key is refused
    const other = await create(account, { url: receiver.url('/other') }).set(
      'Idempotency-Key',
      'register-1',
    );
    expectError(other, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(other)).toEqual(['Idempotency-Key']);
  });

  it('validates url syntax and refuses unknown fields, the secret included', async () => {
    const account = await anAccount(t).build();
    expect(fieldsOf(await create(account, { url: 'not a url' }))).toEqual(['url']);
    expect(fieldsOf(await create(account, { url: 'ftp://example.com/x' }))).toEqual(['url']);
    // An IPv6 zone id passes validator.js but no request can be made to it: 400, not a 500.
    const zoned = await create(account, { url: 'https://[fe80::1%25eth0]/hook' });
    expect(expectError(zoned, 400, 'VALIDATION_ERROR').details).toEqual([
      { field: 'url', message: 'url must be an absolute http(s) URL' },
    ]);
    expect(fieldsOf(await create(account, {}))).toEqual(['url']);
    const res = await create(account, { url: receiver.url(), secret: 'whsec_mine' });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(res)).toEqual(['secret']);
  });

  it('changes url, events and description with PATCH; isActive false pauses, true re-enables', async () => {
    const account = await anAccount(t).build();
    const { id } = (await create(account, { url: receiver.url() }).expect(201)).body.data;
    const patch = (body: object) => as(t, account.liveKey).patch(`/v1/webhooks/${id}`).send(body);

    const changed = await patch({
      url: receiver.url('/v2'),
      events: ['listing.created'],
      description: 'v2',
    }).expect(200);
    expect(changed.body.data).toMatchObject({
      url: receiver.url('/v2'),
      events: ['listing.created'],
      description: 'v2',
    });

    const paused = await patch({ isActive: false }).expect(200);
    expect(paused.body.data.isActive).toBe(false);
    expect(paused.body.data.disabledAt).toEqual(expect.any(String));

    const resumed = await patch({ isActive: true }).expect(200);
    expect(resumed.body.data).toMatchObject({
      isActive: true,
      disabledAt: null,
      consecutiveFailures: 0,
    });
    expectError(await patch({ events: ['nope'] }), 400, 'VALIDATION_ERROR');
    expectError(await patch({ isActive: 'yes' }), 400, 'VALIDATION_ERROR');
    for (const field of ['url', 'events', 'isActive']) {
      const res = await patch({ [field]: null });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual([field]);
    }
    const cleared = await patch({ description: null }).expect(200);
    expect(cleared.body.data).toMatchObject({ description: null, url: receiver.url('/v2') });
  });

  it("answers 404 for another account's endpoint and for a malformed id", async () => {
    const owner = await anAccount(t).build();
    const other = await anAccount(t).build();
    const { id } = (await create(owner, { url: receiver.url() }).expect(201)).body.data;
    const api = as(t, other.liveKey);
    expectError(await api.patch(`/v1/webhooks/${id}`).send({ description: 'x' }), 404, 'NOT_FOUND');
    expectError(await api.delete(`/v1/webhooks/${id}`), 404, 'NOT_FOUND');
    expectError(await api.post(`/v1/webhooks/${id}/test`), 404, 'NOT_FOUND');
    expectError(await api.get(`/v1/webhooks/${id}/deliveries`), 404, 'NOT_FOUND');
    expect((await api.get('/v1/webhooks').expect(200)).body.data).toEqual([]);
    expectError(await as(t, owner.liveKey).delete('/v1/webhooks/not-a-uuid'), 404, 'NOT_FOUND');
    // The owner still has it.
    expect((await as(t, owner.liveKey).get('/v1/webhooks').expect(200)).body.data).toHaveLength(1);
  });

  it('needs the webhooks:manage scope', async () => {
    const account = await anAccount(t).build();
    const key = await createKey(t, account.id, { kind: 'live', scopes: ['listings:read'] });
    expectError(await as(t, key).get('/v1/webhooks'), 403, 'FORBIDDEN');
    expectError(
      await as(t, key).post('/v1/webhooks').send({ url: receiver.url() }),
      403,
      'FORBIDDEN',
    );
  });

  it('sends one signed webhook.test delivery now and answers with its record', async () => {
    const account = await anAccount(t).build();
    const { id, secret } = (
      await as(t, account.testKey)
        .post('/v1/webhooks')
        .send({ url: receiver.url('/test-ok') })
        .expect(201)
    ).body.data;
    const res = await as(t, account.testKey).post(`/v1/webhooks/${id}/test`).expect(200);
    expect(Object.keys(res.body.data).sort()).toEqual(DELIVERY_FIELDS);
    expect(res.body.data).toMatchObject({
      endpointId: id,
      event: 'webhook.test',
      status: 'succeeded',
      attempts: 1,
      lastResponseStatus: 200,
      lastError: null,
      nextAttemptAt: null,
    });
    const [request] = receiver.at('/test-ok');
    expectSignedWebhook(request, secret);
    expect(request.body).toEqual({
      event: 'webhook.test',
      eventId: null,
      deliveryId: res.body.data.deliveryId,
      timestamp: expect.any(String),
      data: { id, externalId: null, livemode: false },
    });
  });

  it('records a failed test delivery without retrying or counting it toward auto-disable', async () => {
    const account = await anAccount(t).build();
    const { id } = (await create(account, { url: receiver.url('/test-500') }).expect(201)).body
      .data;
    receiver.replyWith('/test-500', { status: 500, body: 'boom' });
    const res = await as(t, account.liveKey).post(`/v1/webhooks/${id}/test`).expect(200);
    expect(res.body.data).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastResponseStatus: 500,
      lastError: 'HTTP 500',
      nextAttemptAt: null,
    });
    const [endpoint] = (await as(t, account.liveKey).get('/v1/webhooks').expect(200)).body.data;
    expect(endpoint.consecutiveFailures).toBe(0);
    expect(receiver.at('/test-500')).toHaveLength(1);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const account = await anAccount(t).build();
    const { id } = (await create(account, { url: receiver.url('/moved') }).expect(201)).body.data;
    receiver.replyWith('/moved', {
      status: 301,
      headers: { location: receiver.url('/elsewhere') },
    });
    const res = await as(t, account.liveKey).post(`/v1/webhooks/${id}/test`).expect(200);
    expect(res.body.data).toMatchObject({ status: 'failed', lastResponseStatus: 301 });
    expect(receiver.at('/elsewhere')).toHaveLength(0);
  });

  it('lists deliveries newest first, paginated', async () => {
    const account = await anAccount(t).build();
    const { id } = (await create(account, { url: receiver.url('/history') }).expect(201)).body.data;
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) {
      sent.push(
        (await as(t, account.liveKey).post(`/v1/webhooks/${id}/test`).expect(200)).body.data
          .deliveryId,
      );
    }
    const page1 = await as(t, account.liveKey)
      .get(`/v1/webhooks/${id}/deliveries?limit=2`)
      .expect(200);
    expect(page1.body.pagination).toEqual({ page: 1, limit: 2, total: 3, pages: 2, hasMore: true });
    expect(page1.body.data.map((d: { deliveryId: string }) => d.deliveryId)).toEqual([
      sent[2],
      sent[1],
    ]);
    expect(Object.keys(page1.body.data[0]).sort()).toEqual(DELIVERY_FIELDS);
    const page2 = await as(t, account.liveKey)
      .get(`/v1/webhooks/${id}/deliveries?limit=2&page=2`)
      .expect(200);
    expect(page2.body.data.map((d: { deliveryId: string }) => d.deliveryId)).toEqual([sent[0]]);
    expectError(
      await as(t, account.liveKey).get(`/v1/webhooks/${id}/deliveries?limit=101`),
      400,
      'VALIDATION_ERROR',
    );
  });

  describe('with the escape hatches off (production settings)', () => {
    let strict: TestApp;
    let account: TestAccount;

    beforeAll(async () => {
      // Same database, API role only: the endpoints below are registered through `t`.
      strict = await createTestApp({
        databaseName: t.databaseName,
        role: 'api',
        env: { WEBHOOK_ALLOW_HTTP: 'false', FETCH_ALLOW_PRIVATE_TARGETS: 'false' },
      });
      account = await anAccount(t).build();
    });
    afterAll(() => strict.close());

    const register = (url: string) =>
      as(strict, account.liveKey).post('/v1/webhooks').send({ url });

    it('requires https', async () => {
      const res = await register('http://93.184.216.34/hooks');
      expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([
        { field: 'url', message: 'url must use https.' },
      ]);
    });

    it.each([
      ['loopback', 'https://127.0.0.1/hooks'],
      ['IPv6 loopback', 'https://[::1]/hooks'],
      ['a private network', 'https://10.0.0.5/hooks'],
      ['cloud metadata', 'https://169.254.169.254/latest/meta-data'],
      ['a name resolving to 127.0.0.1', 'https://localhost:8443/hooks'],
      // An IPv6 address that embeds an IPv4 one is judged by the IPv4 address.
      ['IPv4-compatible IPv6 loopback', 'https://[::127.0.0.1]/hooks'],
      ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/hooks'],
      ['IPv4-mapped cloud metadata', 'https://[::ffff:169.254.169.254]/latest/meta-data'],
      ['NAT64 loopback', 'https://[64:ff9b::7f00:1]/hooks'],
      ['6to4 loopback', 'https://[2002:7f00:1::]/hooks'],
      ['Teredo loopback', 'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hooks'],
      ['a unique-local IPv6 address', 'https://[fd00::1]/hooks'],
      ['CGNAT', 'https://100.64.0.1/hooks'],
    ])('refuses %s without telling what it resolved to', async (_, url) => {
      const res = await register(url);
      expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([
        { field: 'url', message: 'url must resolve to a public address.' },
      ]);
    });

    it('accepts a public address that an IPv6 address embeds', async () => {
      // An account of its own: each account may have only 5 endpoints.
      const other = await anAccount(t).build();
      for (const url of ['https://[64:ff9b::808:808]/hooks', 'https://[::ffff:8.8.8.8]/hooks']) {
        await as(strict, other.liveKey).post('/v1/webhooks').send({ url }).expect(201);
      }
    });

    it('refuses a private target on PATCH too', async () => {
      const { id } = (await register('https://93.184.216.34/hooks').expect(201)).body.data;
      const res = await as(strict, account.liveKey)
        .patch(`/v1/webhooks/${id}`)
        .send({ url: 'https://192.168.1.1/' });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual(['url']);
    });

    describe('with http allowed', () => {
      let httpOk: TestApp;
      beforeAll(async () => {
        httpOk = await createTestApp({
          databaseName: t.databaseName,
          role: 'api',
          env: { WEBHOOK_ALLOW_HTTP: 'true', FETCH_ALLOW_PRIVATE_TARGETS: 'false' },
        });
      });
      afterAll(() => httpOk.close());

      it('refuses http://[::127.0.0.1]/ (IPv4-compatible loopback) on url', async () => {
        const res = await as(httpOk, account.liveKey)
          .post('/v1/webhooks')
          .send({ url: 'http://[::127.0.0.1]/' });
        expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([
          { field: 'url', message: 'url must resolve to a public address.' },
        ]);
      });
    });

    it.each([
      [
        'an IP literal',
        (path: string) => receiver.url(path),
        /^Target 127\.0\.0\.1 is not a public address$/,
      ],
      [
        'an IPv4-compatible IPv6 literal',
        (path: string) => `http://[::127.0.0.1]:${receiver.port}${path}`,
        /^Target ::7f00:1 is not a public address$/,
      ],
      [
        'a name (DNS rebinding)',
        (path: string) => `http://localhost:${receiver.port}${path}`,
        /^Target localhost does not resolve to a public address$/,
      ],
    ])(
      'checks %s again when connecting: a private address is refused, nothing is sent',
      async (_, url, error) => {
        // Registered where private targets are allowed, as if its DNS answer changed since.
        const path = `/rebind-${receiver.received.length}`;
        const { id } = (
          await as(t, account.liveKey)
            .post('/v1/webhooks')
            .send({ url: url(path) })
            .expect(201)
        ).body.data;
        const res = await as(strict, account.liveKey).post(`/v1/webhooks/${id}/test`).expect(200);
        expect(res.body.data).toMatchObject({ status: 'failed', lastResponseStatus: null });
        expect(res.body.data.lastError).toMatch(error);
        expect(receiver.at(path)).toHaveLength(0);
      },
    );
  });
});
