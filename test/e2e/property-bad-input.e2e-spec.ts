import fc from 'fast-check';
import type { Response } from 'supertest';
import { admin, anAccount, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 120);

/** Sends any JSON value (supertest's send() only takes objects and strings). */
const json = (body: unknown) => JSON.stringify(body) ?? 'null';

/** Any answer: never a 5xx, always the envelope. */
function expectSafe(res: Response): void {
  const { method, url } = (res as unknown as { request: { method: string; url: string } }).request;
  if (res.status >= 500) throw new Error(`5xx for ${method} ${url}: ${JSON.stringify(res.body)}`);
  expect(typeof res.body.success).toBe('boolean');
  expect(typeof res.body.meta?.requestId).toBe('string');
  if (res.status >= 400) {
    expect(res.body.success).toBe(false);
    expect([
      'UNAUTHORIZED',
      'FORBIDDEN',
      'NOT_FOUND',
      'VALIDATION_ERROR',
      'RATE_LIMITED',
    ]).toContain(res.body.error.code);
  }
}

/** Values shaped like a listing body: right keys with wild values, wild keys, nesting. */
const wildValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(null, true, '', ' ', '\u0000', '💥', -1, Number.MAX_VALUE, 2 ** 53, '1e3', 'NaN'),
  fc.constantFrom('Volvo \ud800', '\udfff', 'e\u0301', 'V70\u202e', '\ufeffbil', 'a\u2066b'),
);
const listingKeys = [
  'title',
  'description',
  'price',
  'condition',
  'categorySlug',
  'locationLan',
  'locationKommun',
  'externalId',
  'phone',
  'attributes',
  'images',
];
const listingLike = fc.oneof(
  fc.dictionary(fc.constantFrom(...listingKeys), wildValue),
  fc.record({
    images: fc.array(
      fc.oneof(fc.record({ url: wildValue, order: wildValue }, { requiredKeys: [] }), wildValue),
      { maxLength: 35 },
    ),
  }),
  fc
    .constant(aListing().build())
    .chain((valid) =>
      fc
        .dictionary(fc.constantFrom(...listingKeys), wildValue)
        .map((changes) => ({ ...valid, ...changes })),
    ),
  fc.jsonValue({ maxDepth: 4 }),
);

/** Control characters the API refuses: C0 but tab, newline and carriage return; DEL; C1. */
const controlCharacter = fc
  .constantFrom(
    ...Array.from({ length: 0xa0 }, (_, code) => code).filter(
      (code) => (code < 0x20 && ![0x09, 0x0a, 0x0d].includes(code)) || code >= 0x7f,
    ),
  )
  .map((code) => String.fromCharCode(code));

/** Lone surrogates, high and low: JSON can carry them as escapes, Unicode text cannot. */
const loneSurrogate = fc
  .integer({ min: 0xd800, max: 0xdfff })
  .map((code) => String.fromCharCode(code));

/** Bidi embeddings, overrides and isolates, and U+FEFF: text that reads other than it is. */
const bidiOrBom = fc
  .constantFrom(0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0xfeff)
  .map((code) => String.fromCharCode(code));

/** Every character a text field refuses. */
const refusedCharacter = fc.oneof(controlCharacter, loneSurrogate, bidiOrBom);

/** An object of 201 to 5,000 keys (over the limit of 200), each with one wild value. */
const wideObject = fc
  .tuple(fc.integer({ min: 201, max: 5000 }), wildValue)
  .map(([count, value]) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, value])),
  );

type Body = Record<string, unknown>;
const insertAt = (text: string, at: number, char: string) =>
  text.slice(0, at % (text.length + 1)) + char + text.slice(at % (text.length + 1));

/**
 * Every string of a listing body, each as a way to slip a character in and the field the 400 must
 * name. Attribute keys and values are named by their field, `attributes`.
 */
const STRING_FIELDS: [string, (body: Body, char: string, at: number) => void][] = [
  ...[
    'title',
    'description',
    'categorySlug',
    'locationLan',
    'locationKommun',
    'externalId',
    'phone',
  ].map((field): [string, (body: Body, char: string, at: number) => void] => [
    field,
    (body, char, at) => {
      body[field] = insertAt(String(body[field]), at, char);
    },
  ]),
  [
    'attributes.model',
    (body, char, at) => {
      const attributes = body.attributes as Record<string, unknown>;
      attributes.model = insertAt(String(attributes.model), at, char);
    },
  ],
  [
    'attributes',
    (body, char, at) => {
      (body.attributes as Record<string, unknown>)[insertAt('colour', at, char)] = 'red';
    },
  ],
  [
    'images[0].url',
    (body, char, at) => {
      const images = body.images as { url: string }[];
      images[0].url = insertAt(images[0].url, at, char);
    },
  ],
];

const withRefusedCharacter = fc
  .tuple(fc.constantFrom(...STRING_FIELDS), refusedCharacter, fc.nat({ max: 200 }))
  .map(([[field, inject], char, at]) => {
    const body = aListing()
      .withExternalId(`ctl-${at}`)
      .with({ phone: '+46701234567' })
      .withImages(1)
      .build();
    inject(body, char, at);
    return { field, body };
  });

describe('Bad input never causes a 5xx nor a change (property tests)', () => {
  let t: TestApp;
  let seller: TestAccount;
  let listingId: string;
  let imageIds: string[];

  beforeAll(async () => {
    t = await createTestApp();
    seller = await anAccount(t).build();
    const l = (
      await as(t, seller.liveKey)
        .post('/v1/listings')
        .send(aListing().withExternalId('prop-1').withImages(3).build())
        .expect(201)
    ).body.data;
    listingId = l.id;
    imageIds = l.images.map((i: { id: string }) => i.id);
  });
  afterAll(() => t.close());

  /** A fingerprint of every row the API can write. */
  const snapshot = async () =>
    JSON.stringify(
      await t.dataSource.query(`SELECT
        (SELECT count(*) FROM listings) AS listings, (SELECT max(updated_at) FROM listings) AS updated,
        (SELECT count(*) FROM listing_images) AS images, (SELECT string_agg(id || ':' || position, ',' ORDER BY id) FROM listing_images) AS positions,
        (SELECT count(*) FROM outbox_events) AS events`),
    );

  async function refusedWithoutChange(send: () => Promise<Response>): Promise<void> {
    const before = await snapshot();
    const res = await send();
    expectSafe(res);
    if (res.status >= 400) expect(await snapshot()).toBe(before);
  }

  it('a control character, lone surrogate, bidi control or U+FEFF in any string field answers 400 naming that field: create, PATCH, bulk item', async () => {
    const fieldOf = (res: Response) => res.body.error?.details?.[0]?.field;
    await fc.assert(
      fc.asyncProperty(withRefusedCharacter, async ({ field, body }) => {
        const created = await as(t, seller.liveKey).post('/v1/listings').send(body);
        expect([created.status, fieldOf(created)]).toEqual([400, field]);

        const patched = await as(t, seller.liveKey).patch(`/v1/listings/${listingId}`).send(body);
        expect([patched.status, fieldOf(patched)]).toEqual([400, field]);

        const bulk = await as(t, seller.liveKey)
          .post('/v1/listings/bulk')
          .send({ items: [body] });
        expect(bulk.status).toBeLessThan(500);
        expect(bulk.body.data.results[0].error.details[0].field).toBe(field);
      }),
      { numRuns: RUNS },
    );
  });

  it('"description": "fin\\u0000x" answers 400 on description', async () => {
    const res = await as(t, seller.liveKey)
      .post('/v1/listings')
      .send(aListing().with({ description: 'fin\u0000x' }).build());
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { field: 'description', message: 'description must not contain control characters' },
    ]);
  });

  it('a control character that JavaScript counts as whitespace is refused, not trimmed or stripped', async () => {
    // Found by the property above: a title's leading vertical tab was trimmed away, a phone's
    // stripped with the spaces, and the listing created.
    for (const [field, value] of [
      ['title', '\u000bVolvo V70 2.4'],
      ['title', 'Volvo V70 2.4\f'],
      ['phone', '+46 70\u000b123 45 67'],
    ]) {
      const res = await as(t, seller.liveKey)
        .post('/v1/listings')
        .send(
          aListing()
            .with({ [field]: value })
            .build(),
        );
      expect([res.status, res.body.error?.details?.[0]?.field]).toEqual([400, field]);
    }
    // Ordinary spaces still go: at a title's ends, and inside a phone number.
    const ok = await as(t, seller.liveKey)
      .post('/v1/listings')
      .send(aListing().with({ title: '  Volvo V70 2.4 \t', phone: '+46 70-123 45 67' }).build())
      .expect(201);
    expect([ok.body.data.title, ok.body.data.phone]).toEqual(['Volvo V70 2.4', '+46701234567']);
  });

  it('the other text fields refuse control characters too, naming the field', async () => {
    const fieldOf = (res: Response) => [res.status, res.body.error?.details?.[0]?.field];
    const key = seller.liveKey;
    expect(
      fieldOf(
        await as(t, key)
          .post('/v1/webhooks')
          .send({ url: 'https://hooks.example.com/a', description: 'ny\u0007' }),
      ),
    ).toEqual([400, 'description']);
    expect(
      fieldOf(
        await as(t, key)
          .post(`/v1/listings/${listingId}/images`)
          .send({ base64: 'aGVq', filename: 'bild\u0085.jpg' }),
      ),
    ).toEqual([400, 'filename']);
    expect(
      fieldOf(await admin(t).post('/v1/admin/accounts').send({ name: 'Bil\u0000hallen AB' })),
    ).toEqual([400, 'name']);
    expect(
      fieldOf(
        await admin(t)
          .post(`/v1/admin/accounts/${seller.id}/keys`)
          .send({ kind: 'live', name: 'ci\u001bkey' }),
      ),
    ).toEqual([400, 'name']);
  });

  it('POST /listings with random bodies', async () => {
    await fc.assert(
      fc.asyncProperty(listingLike, (body) =>
        refusedWithoutChange(() =>
          as(t, seller.liveKey)
            .post('/v1/listings')
            .set('Content-Type', 'application/json')
            .send(json(body)),
        ),
      ),
      { numRuns: RUNS },
    );
  });

  it('PATCH /listings/:id with random bodies', async () => {
    await fc.assert(
      fc.asyncProperty(listingLike, (body) =>
        refusedWithoutChange(() =>
          as(t, seller.testKey)
            .patch(`/v1/listings/${listingId}`)
            .set('Content-Type', 'application/json')
            .send(json(body)),
        ),
      ),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(listingLike, async (body) =>
        expectSafe(
          await as(t, seller.liveKey)
            .patch(`/v1/listings/${listingId}`)
            .set('Content-Type', 'application/json')
            .send(json(body)),
        ),
      ),
      { numRuns: RUNS },
    );
  });

  it('PUT /listings/by-external-id/:externalId with random ids and bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 140 }),
        listingLike,
        async (externalId, body) =>
          expectSafe(
            await as(t, seller.liveKey)
              .put(`/v1/listings/by-external-id/${encodeURIComponent(externalId)}`)
              .set('Content-Type', 'application/json')
              .send(json(body)),
          ),
      ),
      { numRuns: RUNS },
    );
  });

  it('image add and reorder with random bodies', async () => {
    const imageBody = fc.oneof(
      fc.dictionary(fc.constantFrom('url', 'base64', 'filename', 'order'), wildValue),
      fc.record({
        base64: fc.uint8Array({ maxLength: 2000 }).map((b) => Buffer.from(b).toString('base64')),
      }),
      fc.jsonValue({ maxDepth: 3 }),
    );
    await fc.assert(
      fc.asyncProperty(imageBody, (body) =>
        refusedWithoutChange(() =>
          as(t, seller.liveKey)
            .post(`/v1/listings/${listingId}/images`)
            .set('Content-Type', 'application/json')
            .send(json(body)),
        ),
      ),
      { numRuns: RUNS },
    );
    const reorderBody = fc.oneof(
      fc.record({
        imageIds: fc.array(fc.oneof(fc.constantFrom(...imageIds), fc.uuid(), wildValue), {
          maxLength: 6,
        }),
      }),
      fc.record({ imageIds: fc.shuffledSubarray(imageIds) }),
      fc.jsonValue({ maxDepth: 3 }),
    );
    await fc.assert(
      fc.asyncProperty(reorderBody, async (body) =>
        expectSafe(
          await as(t, seller.liveKey)
            .patch(`/v1/listings/${listingId}/images/reorder`)
            .set('Content-Type', 'application/json')
            .send(json(body)),
        ),
      ),
      { numRuns: RUNS },
    );
  });

  it('random bytes uploaded as an image', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 5000 }), (bytes) =>
        refusedWithoutChange(() =>
          as(t, seller.liveKey)
            .post(`/v1/listings/${listingId}/images`)
            .attach('file', Buffer.from(bytes), 'x.jpg'),
        ),
      ),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  });

  it('random query strings on GET /listings', async () => {
    const param = fc.tuple(
      fc.constantFrom(
        'page',
        'limit',
        'status',
        'sort',
        'externalId',
        'updatedSince',
        'x',
        'page[]',
        'limit[a]',
      ),
      fc.oneof(
        fc.string({ maxLength: 40 }),
        fc.integer().map(String),
        fc.constantFrom('', '-1', '0', '101', '1e2', 'ACTIVE', 'price_asc', '2026-01-01T00:00:00Z'),
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(param, { maxLength: 4 }), async (params) => {
        const query = params
          .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
          .join('&');
        expectSafe(await as(t, seller.liveKey).get(`/v1/listings?${query}`));
      }),
      { numRuns: RUNS },
    );
  });

  it('path ids of every shape', async () => {
    const id = fc.oneof(
      fc.string({ minLength: 1, maxLength: 80 }),
      fc.uuid(),
      fc.constantFrom('%', '%zz', '..', '%2e%2e', '%00', 'null', '-1'),
    );
    await fc.assert(
      fc.asyncProperty(
        id,
        fc.constantFrom('get', 'patch', 'delete', 'sold', 'renew', 'images', 'image'),
        async (raw, op) => {
          const seg = /%/.test(raw) ? raw : encodeURIComponent(raw);
          const api = as(t, seller.testKey);
          const res =
            op === 'get'
              ? await api.get(`/v1/listings/${seg}`)
              : op === 'patch'
                ? await api.patch(`/v1/listings/${seg}`).send({ price: 1 })
                : op === 'delete'
                  ? await api.delete(`/v1/listings/${seg}`)
                  : op === 'sold'
                    ? await api.post(`/v1/listings/${seg}/sold`)
                    : op === 'renew'
                      ? await api.post(`/v1/listings/${seg}/renew`)
                      : op === 'images'
                        ? await api
                            .post(`/v1/listings/${seg}/images`)
                            .send({ url: 'https://img.example.com/a.jpg' })
                        : await api.delete(`/v1/listings/${listingId}/images/${seg}`);
          expectSafe(res);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('objects wider than 200 keys anywhere: one 400 with at most 50 details, nothing changed', async () => {
    const placed = fc.oneof(
      wideObject.map((wide) => ({ ...aListing().build(), ...wide })),
      wideObject.map((wide) => aListing().with({ attributes: wide }).build()),
      wideObject.map((wide) =>
        aListing()
          .withImages(1)
          .with({ images: [{ url: 'x', ...wide }] })
          .build(),
      ),
      wideObject.map((wide) => ({ items: [aListing().build(), { nested: { deeper: wide } }] })),
    );
    await fc.assert(
      fc.asyncProperty(placed, fc.constantFrom('/v1/listings', '/v1/listings/bulk'), (body, path) =>
        refusedWithoutChange(async () => {
          const res = await as(t, seller.liveKey)
            .post(path)
            .set('Content-Type', 'application/json')
            .send(json(body));
          // Refused as a whole before any validation, a bulk's valid items included.
          expect(res.status).toBe(400);
          expect(res.body.error.details.length).toBeLessThanOrEqual(50);
          return res;
        }),
      ),
      { numRuns: Math.ceil(RUNS / 4) },
    );
  });

  it('huge, deeply nested and invalid UTF-8 bodies', async () => {
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    const cases: [string, string | Buffer][] = [
      ['deep', deep],
      ['deep array', '['.repeat(100_000) + ']'.repeat(100_000)],
      ['huge', JSON.stringify({ ...aListing().build(), description: 'x'.repeat(3 * 1024 * 1024) })],
      ['long title', JSON.stringify({ ...aListing().build(), title: 'y'.repeat(1_000_000) })],
      [
        'invalid utf-8',
        Buffer.concat([
          Buffer.from('{"title":"'),
          Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
          Buffer.from('"}'),
        ]),
      ],
      [
        'bom',
        Buffer.concat([
          Buffer.from([0xef, 0xbb, 0xbf]),
          Buffer.from(JSON.stringify(aListing().build())),
        ]),
      ],
      ['not an object', '"just a string"'],
      ['number', '42'],
      ['null', 'null'],
      [
        'proto',
        '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}',
      ],
    ];
    for (const [, body] of cases) {
      // serialize() keeps supertest from re-encoding a Buffer as JSON: the bytes go out as they are.
      await refusedWithoutChange(() =>
        as(t, seller.liveKey)
          .post('/v1/listings')
          .set('Content-Type', 'application/json')
          .serialize((b: unknown) => b as string)
          .send(body),
      );
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
