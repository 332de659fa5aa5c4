import { connect, type AddressInfo } from 'node:net';
import { anAccount, admin, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { expectError, expectMeta, fieldsOf } from '../support/envelope';
import { createTestApp, TestApp } from '../support/test-app';

describe('Envelope and errors', () => {
  let t: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    account = await anAccount(t).build();
  });
  afterAll(() => t.close());

  it('wraps a success in {success, data, meta}', async () => {
    const res = await as(t, account.liveKey).get('/v1/me').expect(200);
    expect(Object.keys(res.body)).toEqual(['success', 'data', 'meta']);
    expect(res.body.success).toBe(true);
    expectMeta(res);
  });

  it('gives every list pagination, lists answered whole as one page', async () => {
    for (const [path, total] of [
      ['/v1/locations', 21],
      ['/v1/webhooks', 0],
    ] as const) {
      const res = await as(t, account.liveKey).get(path).expect(200);
      expect(Object.keys(res.body)).toEqual(['success', 'data', 'pagination', 'meta']);
      expect(res.body.data).toHaveLength(total);
      expect(res.body.pagination).toEqual({
        page: 1,
        limit: 100,
        total,
        pages: total > 0 ? 1 : 0,
        hasMore: false,
      });
    }
    const categories = await as(t, account.liveKey).get('/v1/categories').expect(200);
    expect(categories.body.pagination.total).toBe(categories.body.data.length);
  });

  it('gives every request its own id and reuses a safe incoming X-Request-Id', async () => {
    const a = await as(t, account.liveKey).get('/v1/locations');
    const b = await as(t, account.liveKey).get('/v1/locations');
    expect(a.body.meta.requestId).not.toBe(b.body.meta.requestId);
    const reused = await as(t, account.liveKey)
      .get('/v1/locations')
      .set('X-Request-Id', 'sync-run-42');
    expect(reused.body.meta.requestId).toBe('sync-run-42');
    const unsafe = await as(t, account.liveKey)
      .get('/v1/locations')
      .set('X-Request-Id', 'bad id with spaces');
    expect(unsafe.body.meta.requestId).not.toBe('bad id with spaces');
  });

  it('answers an unknown route with 404 NOT_FOUND in the envelope', async () => {
    expectError(await as(t, account.liveKey).get('/v1/nope'), 404, 'NOT_FOUND');
    expectError(await t.http().get('/v2/listings'), 404, 'NOT_FOUND');
    expectError(await as(t, account.liveKey).delete('/v1/locations'), 404, 'NOT_FOUND');
  });

  it('answers malformed JSON with 400 naming the body', async () => {
    const res = await admin(t)
      .post('/v1/admin/accounts')
      .set('Content-Type', 'application/json')
      .send('{"name": ');
    expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([
      { field: 'body', message: expect.any(String) },
    ]);
  });

  it('answers JSON that is not an object (null, a string, an array) with 400: the body must be an object', async () => {
    for (const [sent, message] of [
      ['null', 'body must be a JSON object'],
      ['"x"', 'body must be a JSON object'],
      ['[]', 'body must be a JSON object'],
    ]) {
      const res = await admin(t)
        .post('/v1/admin/accounts')
        .set('Content-Type', 'application/json')
        .send(sent);
      expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([
        { field: 'body', message },
      ]);
    }
  });

  it('answers a body that is not JSON with 400 naming Content-Type', async () => {
    const res = await admin(t)
      .post('/v1/admin/accounts')
      .set('Content-Type', 'text/plain')
      .send('name=x');
    expect(fieldsOf(res)).toEqual(['Content-Type']);
    expectError(res, 400, 'VALIDATION_ERROR');
  });

  it('answers a multipart body anywhere but the image upload with 400 naming Content-Type, changing nothing', async () => {
    const key = account.liveKey;
    const listing = (await as(t, key).post('/v1/listings').send(aListing().build()).expect(201))
      .body.data;
    const patched = await as(t, key).patch(`/v1/listings/${listing.id}`).field('price', '7');
    expectError(patched, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(patched)).toEqual(['Content-Type']);
    const created = await as(t, key).post('/v1/webhooks').field('url', 'https://example.com/h');
    expect(fieldsOf(created)).toEqual(['Content-Type']);
    const after = await as(t, key).get(`/v1/listings/${listing.id}`).expect(200);
    expect(after.body.data).toEqual(listing);
  });

  it('refuses a query parameter a route does not take, naming it, on every route', async () => {
    const key = account.liveKey;
    for (const path of ['/v1/me?limt=5', '/v1/webhooks?page=0', '/v1/categories?limt=5']) {
      const res = await as(t, key).get(path);
      expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([
        {
          field: path.slice(path.indexOf('?') + 1, path.indexOf('=')),
          message: expect.any(String),
        },
      ]);
    }
    // A route's own parameters pass, on the routes that take some.
    await as(t, key).get('/v1/events?limit=5').expect(200);
    await as(t, key).get('/v1/listings?limit=5&sort=newest').expect(200);
    // Where a route takes parameters, the same rule, in the same words.
    const listings = await as(t, key).get('/v1/listings?limt=5');
    const me = await as(t, key).get('/v1/me?limt=5');
    expect(listings.body.error.details).toEqual(me.body.error.details);
    expect(me.body.error.details).toEqual([
      { field: 'limt', message: 'limt is not an allowed field' },
    ]);
  });

  it('refuses fields sent to an action that takes no body, naming them, and changes nothing', async () => {
    const key = account.liveKey;
    const listing = (await as(t, key).post('/v1/listings').send(aListing().build()).expect(201))
      .body.data;
    const sold = await as(t, key)
      .post(`/v1/listings/${listing.id}/sold`)
      .send({ soldAt: '2020-01-01T00:00:00.000Z' });
    expect(expectError(sold, 400, 'VALIDATION_ERROR')).toMatchObject({
      message: 'This action takes no body.',
      details: [{ field: 'soldAt', message: 'soldAt is not an allowed field' }],
    });
    const renewed = await as(t, key)
      .post(`/v1/listings/${listing.id}/renew`)
      .set('Content-Type', 'application/json')
      .send('[1,2,3]');
    expect(expectError(renewed, 400, 'VALIDATION_ERROR').details).toEqual([
      { field: 'body', message: 'body must be a JSON object' },
    ]);
    const removed = await as(t, key).delete(`/v1/listings/${listing.id}`).send({ hard: true });
    expect(fieldsOf(removed)).toEqual(['hard']);
    expect((await as(t, key).get(`/v1/listings/${listing.id}`).expect(200)).body.data).toEqual(
      listing,
    );
    // Any route without a body of its own, the admin API's included.
    const approve = await admin(t).post(`/v1/admin/accounts/${account.id}/approve`).send({ x: 1 });
    expect(fieldsOf(approve)).toEqual(['x']);
    // No body at all, or an empty object, is what such an action takes.
    await as(t, key).post(`/v1/listings/${listing.id}/renew`).send({}).expect(200);
    await as(t, key).post(`/v1/listings/${listing.id}/sold`).expect(200);
  });

  it('answers a body that does not decode as its Content-Encoding says with 400 naming the body', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await admin(t)
        .post('/v1/admin/accounts')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', encoding)
        .send('{"name": "not compressed"}');
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.details).toEqual([
        { field: 'body', message: 'The body could not be decoded as its Content-Encoding says.' },
      ]);
    }
  });

  it('answers a body over the size limit with 400', async () => {
    const res = await admin(t)
      .post('/v1/admin/accounts')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ name: 'x'.repeat(3 * 1024 * 1024) }));
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(res)).toEqual(['body']);
  });

  it('rejects unknown fields, naming them', async () => {
    const res = await admin(t)
      .post('/v1/admin/accounts')
      .send({ name: 'Bilhallen AB', colour: 'red' });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(res)).toEqual(['colour']);
  });

  it('names the full path of a nested field', async () => {
    const res = await admin(t)
      .post(`/v1/admin/accounts/${account.id}/keys`)
      .send({ kind: 'live', scopes: ['listings:read', 'nope'] });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(res)).toEqual(['scopes']);
  });

  it('answers a path id that is not a UUID with 404, never 500', async () => {
    for (const id of ['abc', '1', "1' OR '1'='1", '00000000-0000-0000-0000-00000000000g']) {
      expectError(
        await admin(t).post(`/v1/admin/accounts/${encodeURIComponent(id)}/approve`),
        404,
        'NOT_FOUND',
      );
    }
  });

  it('answers a path that is not valid percent-encoded UTF-8 as its segment would be answered', async () => {
    const api = as(t, account.liveKey);
    // A segment that names a resource by id names none: 404, as any malformed id or unknown route.
    for (const seg of ['%FF', '%', '%zz', '%ED%A0%80']) {
      expectError(await api.get(`/v1/listings/${seg}`), 404, 'NOT_FOUND');
      expectError(await api.get(`/v1/imports/${seg}`), 404, 'NOT_FOUND');
      expectError(await api.get(`/v1/${seg}`), 404, 'NOT_FOUND');
      expectError(await t.http().get(`/media/${seg}`), 404, 'NOT_FOUND');
    }
    // The externalId of PUT is the caller's own text: refused as invalid text is, naming it.
    for (const seg of ['a%FFb', 'a%zz', 'a%ED%A0%80b']) {
      const res = await api.put(`/v1/listings/by-external-id/${seg}`).send({});
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual(['externalId']);
    }
  });

  it("answers what Node's HTTP parser refuses in the envelope: 400 naming the part", async () => {
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(request));
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk));
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
      });
    for (const [request, field, message] of [
      [
        'GET /v1/me HTTP/1.1\r\nHost: x\r\nIdempotency-Key: a\x01b\r\n\r\n',
        'headers',
        'The request is not valid HTTP: a header holds a character it may not.',
      ],
      [
        `GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
        'headers',
        'The request headers are too large.',
      ],
      ['GARBAGE\r\n\r\n', 'request', 'The request line is not valid HTTP.'],
      [
        'POST /v1/listings HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
        'body',
        'The body is not framed as HTTP requires (its Content-Length or chunked encoding).',
      ],
    ]) {
      const answer = await raw(request);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
      expect(body).toMatchObject({
        success: false,
        error: { code: 'VALIDATION_ERROR', message, details: [{ field, message }] },
        meta: { requestId: expect.any(String) },
      });
      // As every answer, it carries its request id as a header too, and nosniff.
      expect(answer).toContain(`\r\nX-Request-Id: ${body.meta.requestId}\r\n`);
      expect(answer).toContain('\r\nX-Content-Type-Options: nosniff\r\n');
    }
  });

  it('answers an unknown UUID with 404', async () => {
    expectError(
      await admin(t).post('/v1/admin/accounts/7d3c0f5e-8a8e-4b6a-9d0e-2f1b5c4a3e21/approve'),
      404,
      'NOT_FOUND',
    );
  });
});
