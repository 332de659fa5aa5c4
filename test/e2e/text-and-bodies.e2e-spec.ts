import type { Response } from 'supertest';
import { expectError, fieldsOf } from '../support/envelope';
import { anAccount, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';

const LONE = '\ud800';
const wideObject = (n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

describe('Text is valid Unicode, stored in NFC; bodies are bounded', () => {
  let t: TestApp;
  let seller: TestAccount;
  beforeAll(async () => {
    t = await createTestApp();
    seller = await anAccount(t).build();
  });
  afterAll(() => t.close());

  const api = () => as(t, seller.liveKey);
  const create = async (body = aListing().build()) =>
    (await api().post('/v1/listings').send(body).expect(201)).body.data;
  const rowOf = async (id: string) =>
    (await t.dataSource.query(`SELECT rendered FROM listings WHERE id = $1`, [id]))[0].rendered;
  const sendRaw = (path: string, body: string | Buffer, method: 'post' | 'patch' = 'post') =>
    api()
      [method](path)
      .set('Content-Type', 'application/json')
      // serialize() keeps supertest from re-encoding: the bytes go out as they are
      .serialize((b: unknown) => b as string)
      .send(body);

  describe('a lone surrogate is a 400 naming the field, never a 500', () => {
    it('POST /listings: title, description, an attribute value and key', async () => {
      for (const [field, body] of [
        [
          'title',
          aListing()
            .with({ title: `Volvo ${LONE} V70` })
            .build(),
        ],
        ['description', aListing().with({ description: `bra\udc00` }).build()],
        [
          'attributes.model',
          aListing()
            .with({ attributes: { make: 'volvo', model: `V7${LONE}` } })
            .build(),
        ],
        [
          'attributes',
          aListing()
            .with({ attributes: { make: 'volvo', [`mo${LONE}del`]: 'V70' } })
            .build(),
        ],
      ] as const) {
        const error = expectError(
          await api().post('/v1/listings').send(body),
          400,
          'VALIDATION_ERROR',
        );
        expect(error.details?.[0].field).toBe(field);
        expect(error.details?.[0].message).toMatch(/valid Unicode/);
      }
      const attr = expectError(
        await api()
          .post('/v1/listings')
          .send(
            aListing()
              .with({
                attributes: {
                  make: 'volvo',
                  model: `V7${LONE}`,
                  modelYear: 2008,
                  mileageKm: 1,
                  fuel: 'petrol',
                  gearbox: 'manual',
                },
              })
              .build(),
          ),
        400,
        'VALIDATION_ERROR',
      );
      expect(attr.details).toEqual([
        {
          field: 'attributes.model',
          message: 'model must be valid Unicode (it contains a lone surrogate)',
        },
      ]);
    });

    it('names each attribute at fault by its path, with the other errors of the body', async () => {
      const res = await api()
        .post('/v1/listings')
        .send(
          aListing()
            .with({
              description: 'Fin\u202e',
              attributes: {
                make: 'volvo',
                model: 'V70\u202e',
                modelYear: 'x',
                mileageKm: 1,
                fuel: 'petrol',
                gearbox: 'manual',
                'co\u0007lor': 'red',
              },
            })
            .build(),
        );
      expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([
        { field: 'description', message: expect.stringMatching(/^description must not contain/) },
        {
          field: 'attributes',
          message: 'a key of attributes must not contain control characters',
        },
        {
          field: 'attributes.model',
          message: expect.stringMatching(/^model must not contain bidi/),
        },
        { field: 'attributes.modelYear', message: 'modelYear must be an integer' },
      ]);
    });

    it('PATCH refuses it and leaves the listing as it was (no U+FFFD stored)', async () => {
      const listing = await create();
      const before = await rowOf(listing.id);
      const res = await api()
        .patch(`/v1/listings/${listing.id}`)
        .send({ title: `Volvo ${LONE} V70` });
      expect(fieldsOf(res)).toEqual(['title']);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(await rowOf(listing.id)).toBe(before);
      expect((await api().get(`/v1/listings/${listing.id}`).expect(200)).body.data.title).toBe(
        listing.title,
      );
    });

    it('PUT /listings/by-external-id refuses it', async () => {
      const res = await api()
        .put('/v1/listings/by-external-id/sur-1')
        .send(
          aListing()
            .with({ description: `ok ${LONE}` })
            .build(),
        );
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual(['description']);
      await api()
        .get('/v1/listings?externalId=sur-1')
        .expect(200, /"total":0/);
    });

    it('bulk create and update: only the bad item fails, the others succeed', async () => {
      const created = await api()
        .post('/v1/listings/bulk')
        .send({
          items: [
            aListing().withExternalId('bulk-s-0').build(),
            aListing()
              .withExternalId('bulk-s-1')
              .with({ title: `Volvo ${LONE} V70` })
              .build(),
            aListing().withExternalId('bulk-s-2').with({ title: 'Saab 9-3\u202e' }).build(),
            aListing().withExternalId('bulk-s-3').build(),
          ],
        })
        .expect(200);
      expect(created.body.data).toMatchObject({ total: 4, created: 2, failed: 2 });
      const results = created.body.data.results;
      expect(results.map((r: { success: boolean }) => r.success)).toEqual([
        true,
        false,
        false,
        true,
      ]);
      expect(results[1].error.details[0].field).toBe('title');
      expect(results[2].error.details[0].field).toBe('title');

      const updated = await api()
        .patch('/v1/listings/bulk')
        .send({
          items: [
            { id: results[0].data.id, price: 1000 },
            { id: results[3].data.id, description: `x${LONE}` },
          ],
        })
        .expect(200);
      expect(updated.body.data).toMatchObject({ updated: 1, failed: 1 });
      expect(updated.body.data.results[1].error.details[0].field).toBe('description');
    });
  });

  describe('keys named as Object.prototype members are unknown fields, never dropped quietly', () => {
    const withKeys = (json: string) =>
      sendRaw('/v1/listings', JSON.stringify(aListing().build()).replace(/}$/, `,${json}}`));

    it('POST /listings: in the body and in attributes, the field named', async () => {
      for (const [json, field] of [
        ['"constructor": 1', 'constructor'],
        ['"toString": "x"', 'toString'],
        ['"__proto__": {"price": 1}', '__proto__'],
        ['"images": [{"url": "https://example.com/a.jpg", "valueOf": 1}]', 'images[0].valueOf'],
      ] as const) {
        expect(fieldsOf(await withKeys(json))).toEqual([field]);
      }
      const attributes = await api()
        .post('/v1/listings')
        .send({
          ...aListing().build(),
          attributes: JSON.parse('{"make": "volvo", "hasOwnProperty": 1}'),
        });
      expect(fieldsOf(attributes)).toEqual(['attributes.hasOwnProperty']);
      const put = await api()
        .put('/v1/listings/by-external-id/proto-1')
        .send(JSON.parse(`{"title": "Volvo V70", "constructor": 1}`));
      expect(fieldsOf(put)).toContain('constructor');
      await api()
        .get('/v1/listings?externalId=proto-1')
        .expect(200, /"total":0/);
    });

    it('bulk create: only the item with such a key fails', async () => {
      const items = JSON.parse(
        `[${JSON.stringify(aListing().build())}, ${JSON.stringify(aListing().build()).replace(/}$/, ',"toString": 1}')}]`,
      );
      const res = await api().post('/v1/listings/bulk').send({ items }).expect(200);
      expect(res.body.data).toMatchObject({ created: 1, failed: 1 });
      expect(res.body.data.results[1].error.details).toEqual([
        { field: 'toString', message: 'toString is not an allowed field' },
      ]);
    });
  });

  it('bidi controls and U+FEFF are refused in text fields', async () => {
    for (const char of ['\u202a', '\u202e', '\u2066', '\u2069', '\ufeff']) {
      const res = await api()
        .post('/v1/listings')
        .send(
          aListing()
            .with({ title: `Volvo${char} V70 D5` })
            .build(),
        );
      expect(fieldsOf(res)).toEqual(['title']);
    }
    const query = await api().get(`/v1/listings?externalId=${encodeURIComponent('a\u202eb')}`);
    expectError(query, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(query)).toEqual(['externalId']);
    const hook = await api()
      .post('/v1/webhooks')
      .send({ url: 'https://hooks.example.com/a', description: '\ufeffny' });
    expect(fieldsOf(hook)).toEqual(['description']);
  });

  it('a surrogate cannot reach PostgreSQL through a query or another body either', async () => {
    // %ED%A0%80 is U+D800 encoded as UTF-8 bytes, which UTF-8 does not allow
    for (const raw of ['%ED%A0%80', '%ED%B0%80abc', '%F0%9F%98']) {
      const res = await api().get(`/v1/listings?externalId=${raw}`);
      expect(res.status).toBeLessThan(500);
      expect(res.body.success).toBe(res.status === 200);
    }
    const hook = await api()
      .post('/v1/webhooks')
      .send({ url: 'https://hooks.example.com/a', description: `ny ${LONE}` });
    expectError(hook, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(hook)).toEqual(['description']);
  });

  describe('bytes that are not UTF-8: the field holding them is refused, in a bulk only its item', () => {
    /** JSON text with `Vol` in it, its bytes from `send` with a Latin-1 `å` (0xE5) after `Vol`. */
    const latin1After = (json: string, marker = 'Vol') => {
      const at = Buffer.from(json).indexOf(marker) + marker.length;
      const bytes = Buffer.from(json);
      return Buffer.concat([bytes.subarray(0, at), Buffer.from([0xe5]), bytes.subarray(at)]);
    };
    const notUtf8 = (field: string) => [{ field, message: `${field} is not valid UTF-8` }];

    it('POST and PATCH /listings name the field, and nothing is written', async () => {
      const json = JSON.stringify(aListing().withExternalId('utf8-1').build());
      const res = await sendRaw('/v1/listings', latin1After(json));
      expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual(notUtf8('title'));
      await api()
        .get('/v1/listings?externalId=utf8-1')
        .expect(200, /"total":0/);
      // the same bytes as valid UTF-8 are accepted, so the refusal is the byte's
      await sendRaw('/v1/listings', Buffer.from(json)).expect(201);

      const listing = await create();
      const patch = latin1After(JSON.stringify({ description: 'Volvo i fint skick' }));
      const patched = await sendRaw(`/v1/listings/${listing.id}`, patch, 'patch');
      expect(expectError(patched, 400, 'VALIDATION_ERROR').details).toEqual(notUtf8('description'));
      const after = (await api().get(`/v1/listings/${listing.id}`).expect(200)).body.data;
      expect(after.description).toBe(listing.description);
    });

    it('bulk create and update: only the item holding them fails, naming the field', async () => {
      const items = [0, 1, 2].map((i) => aListing().withExternalId(`utf8-b${i}`).build());
      items[1] = { ...items[1], title: 'Volkswagen Golf' };
      items[2] = { ...items[2], title: 'Saab 9-5' };
      const body = latin1After(JSON.stringify({ items }), 'Volkswagen');
      const created = await sendRaw('/v1/listings/bulk', body).expect(200);
      expect(created.body.data).toMatchObject({ total: 3, created: 2, failed: 1 });
      const results = created.body.data.results;
      expect(results[1].error.details).toEqual(notUtf8('title'));
      expect(results.map((r: { success: boolean }) => r.success)).toEqual([true, false, true]);

      const update = latin1After(
        JSON.stringify({
          items: [
            { id: results[0].data.id, price: 1000 },
            { externalId: 'utf8-b2', description: 'Volvo-motor' },
          ],
        }),
      );
      const updated = await sendRaw('/v1/listings/bulk', update, 'patch').expect(200);
      expect(updated.body.data).toMatchObject({ updated: 1, failed: 1 });
      expect(updated.body.data.results[1].error.details).toEqual(notUtf8('description'));
    });

    it('other routes name their field too', async () => {
      const hook = await sendRaw(
        '/v1/webhooks',
        latin1After(JSON.stringify({ url: 'https://hooks.example.com/a', description: 'Volvo' })),
      );
      expect(expectError(hook, 400, 'VALIDATION_ERROR').details).toEqual(notUtf8('description'));
      const url = await sendRaw(
        '/v1/webhooks',
        latin1After(JSON.stringify({ url: 'https://hooks.example.com/Vol' }), '/Vol'),
      );
      expectError(url, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(url)).toEqual(['url']);
      const feed = await sendRaw(
        '/v1/imports',
        latin1After(
          JSON.stringify({ sourceUrl: 'https://feeds.example.com/Vol', format: 'csv' }),
          '/Vol',
        ),
      );
      expectError(feed, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(feed)).toEqual(['sourceUrl']);
    });

    it('after a byte order mark too, and the service stays up', async () => {
      const json = JSON.stringify(aListing().build());
      const res = await sendRaw(
        '/v1/listings',
        Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), latin1After(json)]),
      );
      expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual(notUtf8('title'));
      await t.http().get('/health/live').expect(200);
    });

    it('outside a string, or where a mark could be mistaken, the body is refused as a whole', async () => {
      const bodyNotUtf8 = [{ field: 'body', message: 'The body is not valid UTF-8.' }];
      const json = JSON.stringify(aListing().build());
      for (const bytes of [
        // between two members: no JSON at all
        Buffer.concat([Buffer.from(json.slice(0, -1)), Buffer.from([0xe5]), Buffer.from('}')]),
        // beside a U+FFFD of the sender's, which a replacement could not be told from
        latin1After(json.replace('"Volvo', '"\ufffd Volvo')),
        // right after an escaped high surrogate, which the mark would complete
        latin1After(json.replace('Volvo', '\\ud83dVolvo'), 'ud83d'),
      ]) {
        const res = await sendRaw('/v1/listings', bytes);
        expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual(bodyNotUtf8);
      }
    });
  });

  it('text is stored in NFC: sent decomposed, read composed (listing, attributes, list, events)', async () => {
    const decomposed = 'Ha\u0308rno\u0308sand cafe\u0301bord';
    const composed = 'Härnösand cafébord';
    const listing = await create(
      aListing()
        .withExternalId('nfc-e\u0301')
        .with({
          title: decomposed,
          description: decomposed,
          attributes: { ...aListing().build().attributes!, model: `V70 ${decomposed}` },
        })
        .build(),
    );
    expect(listing).toMatchObject({ title: composed, externalId: 'nfc-é' });
    const read = (await api().get(`/v1/listings/${listing.id}`).expect(200)).body.data;
    expect(read).toMatchObject({
      title: composed,
      description: composed,
      externalId: 'nfc-é',
      attributes: { model: `V70 ${composed}` },
    });
    expect(read.title).toHaveLength(composed.length);
    // either form finds it by externalId, in the query and in the path
    for (const form of ['nfc-e\u0301', 'nfc-é']) {
      const page = await api()
        .get(`/v1/listings?externalId=${encodeURIComponent(form)}`)
        .expect(200);
      expect(page.body.data.map((l: { id: string }) => l.id)).toEqual([listing.id]);
    }
    const put = await api()
      .put(`/v1/listings/by-external-id/${encodeURIComponent('nfc-e\u0301')}`)
      .send(aListing().with({ title: 'Ca\u0300fe\u0301 ny titel' }).build())
      .expect(200);
    expect(put.body.data).toMatchObject({ id: listing.id, title: 'Càfé ny titel' });
  });

  it('reads a UTF-16 body in the byte order it comes in, as declared by its charset', async () => {
    const body = aListing().with({ title: 'Straße Übung Ø' }).build();
    const bigEndian = Buffer.from(JSON.stringify(body), 'utf16le').swap16();
    const res = await api()
      .post('/v1/listings')
      .set('Content-Type', 'application/json; charset=utf-16')
      .serialize((b: unknown) => b as string)
      .send(bigEndian)
      .expect(201);
    expect(res.body.data.title).toBe('Straße Übung Ø');
  });

  describe('bounded work per request', () => {
    /** Sends the request and, while it is processed, a liveness probe; both timed. */
    /** Sends the body and, once it is on its way, probes liveness. */
    async function withLivenessProbe(send: () => Promise<Response>) {
      const request = send();
      await new Promise((resolve) => setImmediate(resolve));
      const health = await t.http().get('/health/live');
      return { res: await request, health };
    }

    it.each([
      ['the body', () => wideObject(100_000), 'body'],
      [
        'attributes',
        () =>
          aListing()
            .with({ attributes: wideObject(100_000) })
            .build(),
        'attributes',
      ],
    ])(
      '100,000 keys in %s: one small 400, and liveness answers meanwhile',
      async (_name, body, field) => {
        const text = JSON.stringify(body());
        const { res, health } = await withLivenessProbe(() => sendRaw('/v1/listings', text));
        const error = expectError(res, 400, 'VALIDATION_ERROR');
        expect(error.details).toEqual([
          { field, message: expect.stringMatching(/more than 200 keys/) },
        ]);
        expect(res.text.length).toBeLessThan(10 * 1024);
        expect(health.status).toBe(200);
      },
    );

    it('a nested object over 200 keys is refused, 200 keys pass the limit', async () => {
      const items = [
        aListing().build(),
        aListing()
          .with({ attributes: wideObject(201) })
          .build(),
      ];
      const res = await api().post('/v1/listings/bulk').send({ items });
      expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([
        { field: 'items[1].attributes', message: 'items[1].attributes has more than 200 keys.' },
      ]);
      // 200 keys are let through to validation, which refuses the unknown attributes (50 listed)
      const wide = await api()
        .post('/v1/listings')
        .send(
          aListing()
            .with({ attributes: wideObject(200) })
            .build(),
        );
      const error = expectError(wide, 400, 'VALIDATION_ERROR');
      expect(error.details).toHaveLength(50);
      expect(error.details?.[0].field).toBe('attributes.k0');
      // 200 unknown attributes and the 6 required ones missing
      expect(error.message).toMatch(/ … and 156 more errors$/);
    });

    it('an array over 100 items anywhere is refused whole, naming it; 100 pass the limit', async () => {
      const items = Array.from({ length: 101 }, () => ({}));
      const res = await sendRaw('/v1/listings/bulk', JSON.stringify({ items }));
      expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([
        { field: 'items', message: 'items has more than 100 items.' },
      ]);
      const listing = await create();
      const ids = Array.from({ length: 2_000_000 }, () => 0);
      const reorder = await api()
        .patch(`/v1/listings/${listing.id}/images/reorder`)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ imageIds: ids.slice(0, 101) }));
      expect(expectError(reorder, 400, 'VALIDATION_ERROR').details).toEqual([
        { field: 'imageIds', message: 'imageIds has more than 100 items.' },
      ]);
      // 100 items reach validation, which gives the route's own limit
      const hundred = await api()
        .post('/v1/listings/bulk')
        .send({ items: items.slice(1) });
      expect(expectError(hundred, 400, 'VALIDATION_ERROR').details?.[0].field).toBe('items');
      expect(hundred.body.error.message).not.toMatch(/more than 100 items/);
      // Only the image upload takes the 15 MB of a base64 image; a route under it takes 2 MB.
      const big = JSON.stringify({ imageIds: ids });
      expect(big.length).toBeGreaterThan(3_000_000);
      const tooBig = await api()
        .patch(`/v1/listings/${listing.id}/images/reorder`)
        .set('Content-Type', 'application/json')
        .send(big);
      expect(expectError(tooBig, 400, 'VALIDATION_ERROR').message).toBe(
        'The body is larger than this endpoint accepts.',
      );
    });

    it('a body of more than 20,000 values is refused whole, on the image upload too', async () => {
      const row = `[${Array.from({ length: 99 }, () => '{}').join(',')}]`;
      const grid = `[${Array.from({ length: 99 }, () => row).join(',')}]`;
      const listing = await create();
      for (const path of ['/v1/listings', `/v1/listings/${listing.id}/images`]) {
        const res = await sendRaw(path, `{"x":[${grid},${grid},${grid}]}`);
        expect({ path, details: expectError(res, 400, 'VALIDATION_ERROR').details }).toEqual({
          path,
          details: [{ field: 'body', message: 'The body holds more than 20000 values.' }],
        });
      }
    });

    it('details hold at most 50 entries, the message counts the rest', async () => {
      const body = { ...aListing().build(), ...wideObject(190) };
      const res = await api().post('/v1/listings').send(body);
      const error = expectError(res, 400, 'VALIDATION_ERROR');
      expect(error.details).toHaveLength(50);
      expect(error.message).toBe('k0 is not an allowed field … and 140 more errors');
    });
  });
});
