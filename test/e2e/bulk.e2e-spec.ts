import { randomUUID } from 'node:crypto';
import { anAccount, as, createKey, TestAccount } from '../support/factories';
import { expectError, expectMeta, fieldsOf } from '../support/envelope';
import { aListing } from '../support/listing-builder';
import { withFailingListingInserts } from '../support/failing-inserts';
import { createTestApp, TestApp } from '../support/test-app';

interface ItemResult {
  index: number;
  success: boolean;
  data?: { id: string };
  error?: { code: string; message: string; details?: { field: string; message: string }[] };
}

describe('Bulk: create, update, delete and mark sold', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const bulkCreate = (key: string, items: unknown[]) =>
    as(t, key).post('/v1/listings/bulk').send({ items });
  const bulkUpdate = (key: string, items: unknown[]) =>
    as(t, key).patch('/v1/listings/bulk').send({ items });
  const bulkDelete = (key: string, ids: unknown[]) =>
    as(t, key).delete('/v1/listings/bulk').send({ ids });
  const bulkSold = (key: string, ids: unknown[]) =>
    as(t, key).post('/v1/listings/bulk/sold').send({ ids });

  const createListing = async (key: string, body = aListing().build()) =>
    (await as(t, key).post('/v1/listings').send(body).expect(201)).body.data;
  const getListing = async (key: string, id: string) =>
    (await as(t, key).get(`/v1/listings/${id}`).expect(200)).body.data;
  const eventsFor = async (ids: string[]) =>
    (
      (await t.dataSource.query(
        `SELECT event, data->>'id' AS id FROM outbox_events WHERE data->>'id' = ANY($1) ORDER BY seq`,
        [ids],
      )) as { event: string; id: string }[]
    ).map((e) => `${e.event} ${ids.indexOf(e.id)}`);
  const countRows = async (sql: string, params: unknown[]) =>
    (await t.dataSource.query(`SELECT count(*)::int AS n FROM ${sql}`, params))[0].n as number;

  /** `ok` for a success, else the item's error code. */
  const outcomes = (results: ItemResult[]) =>
    results.map((r) => (r.success ? 'ok' : r.error!.code));
  const idsOf = (results: ItemResult[]) => results.map((r) => r.data?.id);

  describe('the request as a whole', () => {
    let seller: TestAccount;
    beforeAll(async () => {
      seller = await anAccount(t).build();
    });

    it.each([
      ['POST /listings/bulk', () => bulkCreate(seller.liveKey, []), 'items'],
      ['PATCH /listings/bulk', () => bulkUpdate(seller.liveKey, []), 'items'],
      ['DELETE /listings/bulk', () => bulkDelete(seller.liveKey, []), 'ids'],
      ['POST /listings/bulk/sold', () => bulkSold(seller.liveKey, []), 'ids'],
    ])('%s refuses 0 items with 400', async (_, send, field) => {
      const res = await send();
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual([field]);
    });

    it('refuses 51 items with 400 and writes nothing', async () => {
      const items = Array.from({ length: 51 }, (_, i) =>
        aListing().withExternalId(`too-many-${i}`).build(),
      );
      const res = await bulkCreate(seller.liveKey, items);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual(['items']);
      expect(res.body.error.message).toBe('items must be an array of 1–50 items');
      expect(await countRows('listings WHERE account_id = $1', [seller.id])).toBe(0);

      const ids = Array.from({ length: 51 }, () => randomUUID());
      expect(fieldsOf(await bulkDelete(seller.liveKey, ids))).toEqual(['ids']);
      expect(fieldsOf(await bulkSold(seller.liveKey, ids))).toEqual(['ids']);
      expect(
        fieldsOf(
          await bulkUpdate(
            seller.liveKey,
            ids.map((id) => ({ id })),
          ),
        ),
      ).toEqual(['items']);
    });

    it('refuses a body that is not {items} / {ids}', async () => {
      const noItems = await as(t, seller.liveKey).post('/v1/listings/bulk').send({});
      expect(fieldsOf(noItems)).toEqual(['items']);
      const notArray = await as(t, seller.liveKey)
        .post('/v1/listings/bulk')
        .send({ items: aListing().build() });
      expect(fieldsOf(notArray)).toEqual(['items']);
      const extra = await as(t, seller.liveKey)
        .delete('/v1/listings/bulk')
        .send({ ids: [randomUUID()], force: true });
      expectError(extra, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(extra)).toEqual(['force']);
    });

    it('reaches the bulk routes, not /listings/:id with id "bulk"', async () => {
      const [a, b, c] = [
        await createListing(seller.liveKey),
        await createListing(seller.liveKey),
        await createListing(seller.liveKey),
      ];
      expect(
        (await bulkUpdate(seller.liveKey, [{ id: a.id, price: 1 }]).expect(200)).body.data,
      ).toMatchObject({ total: 1, updated: 1, failed: 0 });
      expect((await bulkSold(seller.liveKey, [b.id]).expect(200)).body.data).toMatchObject({
        total: 1,
        sold: 1,
      });
      const res = await bulkDelete(seller.liveKey, [c.id]).expect(200);
      expectMeta(res);
      expect(res.body).toMatchObject({
        success: true,
        data: { total: 1, deleted: 1, failed: 0, results: [{ index: 0, success: true }] },
      });
      expect((await getListing(seller.liveKey, c.id)).status).toBe('REMOVED');
    });

    it('needs the listings:write scope', async () => {
      const readOnly = await createKey(t, seller.id, { kind: 'live', scopes: ['listings:read'] });
      expectError(await bulkCreate(readOnly, [aListing().build()]), 403, 'FORBIDDEN');
      expectError(await bulkDelete(readOnly, [randomUUID()]), 403, 'FORBIDDEN');
    });
  });

  describe('POST /v1/listings/bulk', () => {
    it('creates 50 listings in one request, in input order, each with its listing.created event', async () => {
      const seller = await anAccount(t).build();
      const items = Array.from({ length: 50 }, (_, i) =>
        aListing()
          .withExternalId(`fifty-${i}`)
          .with({ price: 1000 + i })
          .withImages(i % 3)
          .build(),
      );
      const res = await bulkCreate(seller.liveKey, items).expect(200);
      expectMeta(res);
      const data = res.body.data;
      expect(Object.keys(data)).toEqual(['total', 'created', 'failed', 'results']);
      expect(data).toMatchObject({ total: 50, created: 50, failed: 0 });
      expect(data.results.map((r: ItemResult) => r.index)).toEqual([...Array(50).keys()]);
      expect(data.results.every((r: ItemResult) => r.success && !('error' in r))).toBe(true);

      const ids = idsOf(data.results) as string[];
      const rows: { id: string; external_id: string; price: number; status: string }[] =
        await t.dataSource.query(
          `SELECT id, external_id, price, status FROM listings WHERE id = ANY($1)`,
          [ids],
        );
      const byId = new Map(rows.map((r) => [r.id, r]));
      ids.forEach((id, i) =>
        expect(byId.get(id)).toMatchObject({
          external_id: `fifty-${i}`,
          price: 1000 + i,
          status: 'ACTIVE',
        }),
      );
      const sample = await getListing(seller.liveKey, ids[2]);
      expect(sample.images.map((img: { order: number }) => img.order)).toEqual([0, 1]);
      expect(await eventsFor(ids)).toEqual(ids.map((_, i) => `listing.created ${i}`));
      const list = await as(t, seller.liveKey).get('/v1/listings').expect(200);
      expect(list.body.pagination.total).toBe(50);
    });

    it('creates DRAFT listings with a test key', async () => {
      const seller = await anAccount(t).build();
      const res = await bulkCreate(seller.testKey, [aListing().build()]).expect(200);
      const listing = await getListing(seller.testKey, res.body.data.results[0].data.id);
      expect(listing).toMatchObject({ status: 'DRAFT', livemode: false });
    });

    it('fails invalid items alone, with the error a single POST /listings gives', async () => {
      const seller = await anAccount(t).build();
      const invalid = {
        missingPrice: aListing().without('price').build(),
        unknownField: aListing().with({ colour: 'red' }).build(),
        wrongKommun: aListing().with({ locationKommun: 'malmo' }).build(),
        badImage: aListing()
          .with({ images: [{ url: 'ftp://x' }] })
          .build(),
        // An item that is an array, where an image object belongs.
        nestedImage: aListing()
          .with({ images: [[]] })
          .build(),
      };
      const items = [
        aListing().withExternalId('mixed-0').build(),
        invalid.missingPrice,
        aListing().withExternalId('mixed-2').build(),
        invalid.unknownField,
        invalid.wrongKommun,
        invalid.badImage,
        invalid.nestedImage,
        'not a listing',
        aListing().withExternalId('mixed-8').build(),
      ];
      const data = (await bulkCreate(seller.liveKey, items).expect(200)).body.data;
      expect(data).toMatchObject({ total: 9, created: 3, failed: 6 });
      expect(outcomes(data.results)).toEqual([
        'ok',
        'VALIDATION_ERROR',
        'ok',
        'VALIDATION_ERROR',
        'VALIDATION_ERROR',
        'VALIDATION_ERROR',
        'VALIDATION_ERROR',
        'VALIDATION_ERROR',
        'ok',
      ]);
      expect(data.results[1].error.details).toEqual([
        { field: 'price', message: expect.any(String) },
      ]);
      const singles = await Promise.all(
        Object.values(invalid).map((body) => as(t, seller.liveKey).post('/v1/listings').send(body)),
      );
      expect([1, 3, 4, 5, 6].map((i) => data.results[i].error)).toEqual(
        singles.map((single) => single.body.error),
      );
      expect(fieldsOf(singles[3])).toEqual(['images[0].url']);
      expect(singles[4].body.error.details).toEqual([
        { field: 'images', message: 'images[0] must be an object: {"url": "https://…"}' },
      ]);
      expect(data.results[7].error.details).toEqual([
        { field: 'body', message: 'body must be a JSON object' },
      ]);
      expect(data.results[7]).not.toHaveProperty('data');

      const created = idsOf(data.results).filter(Boolean) as string[];
      expect(await countRows('listings WHERE account_id = $1', [seller.id])).toBe(3);
      expect(await eventsFor(created)).toEqual([0, 1, 2].map((i) => `listing.created ${i}`));
      expect(await countRows(`outbox_events WHERE account_id = $1`, [seller.id])).toBe(3);
    });

    it('names a shape error, an unknown kommun and a bad attribute of one item together, as the single requests do', async () => {
      const seller = await anAccount(t).build();
      const body = aListing().build();
      const bad = {
        ...body,
        price: -5,
        locationKommun: 'atlantis',
        attributes: { ...(body.attributes as object), modelYear: 'new' },
      };
      const data = (await bulkCreate(seller.liveKey, [aListing().build(), bad]).expect(200)).body
        .data;
      expect(data).toMatchObject({ total: 2, created: 1, failed: 1 });
      expect(data.results[1]).toEqual({
        index: 1,
        success: false,
        error: {
          code: 'VALIDATION_ERROR',
          message: 'price must not be less than 0',
          details: [
            { field: 'price', message: 'price must not be less than 0' },
            { field: 'attributes.modelYear', message: 'modelYear must be an integer' },
            {
              field: 'locationKommun',
              message: "locationKommun 'atlantis' is not a kommun slug from GET /v1/locations",
            },
          ],
        },
      });
      const single = await as(t, seller.liveKey).post('/v1/listings').send(bad);
      expect(data.results[1].error).toEqual(single.body.error);

      // An update item gets the merged listing's checks with its shape error, as PATCH does.
      const l = data.results[0].data.id as string;
      const patch = { price: 'free', locationKommun: 'malmo', attributes: { make: 'volvo' } };
      const updated = (await bulkUpdate(seller.liveKey, [{ id: l, ...patch }]).expect(200)).body
        .data;
      expect(updated.results[0].error.details.map((d: { field: string }) => d.field)).toEqual([
        'price',
        'attributes.model',
        'attributes.modelYear',
        'attributes.mileageKm',
        'attributes.fuel',
        'attributes.gearbox',
        'locationKommun',
      ]);
      const singlePatch = await as(t, seller.liveKey).patch(`/v1/listings/${l}`).send(patch);
      expect(updated.results[0].error).toEqual(singlePatch.body.error);
      const byExternalId = await bulkUpdate(seller.liveKey, [
        { externalId: 'nobody', ...patch },
      ]).expect(200);
      // An unknown listing has no merged checks: the shape error alone, as before.
      expect(byExternalId.body.data.results[0].error.details).toEqual([
        { field: 'price', message: 'price must be an integer number' },
      ]);
    });

    it('answers 200 when every item failed', async () => {
      const seller = await anAccount(t).build();
      const res = await bulkCreate(seller.liveKey, [aListing().without('title').build()]);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ total: 1, created: 0, failed: 1 });
    });

    describe('with Idempotency-Key', () => {
      let seller: TestAccount;
      beforeAll(async () => {
        seller = await anAccount(t).build();
      });
      const post = (key: string, items: unknown[]) =>
        as(t, seller.liveKey).post('/v1/listings/bulk').set('Idempotency-Key', key).send({ items });

      it('replays the first result, failed items included, and creates nothing twice', async () => {
        const items = [
          aListing().withExternalId('idem-1').build(),
          aListing().without('price').build(),
          aListing().withExternalId('idem-2').build(),
        ];
        const first = await post('bulk-retry-1', items).expect(200);
        expect(first.headers['idempotent-replayed']).toBeUndefined();
        expect(first.body.data).toMatchObject({ total: 3, created: 2, failed: 1 });
        const again = await post('bulk-retry-1', items).expect(200);
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.body.data).toEqual(first.body.data);
        expect(again.body.meta.requestId).not.toBe(first.body.meta.requestId);
        expect(await countRows('listings WHERE account_id = $1', [seller.id])).toBe(2);
        expect(await countRows('outbox_events WHERE account_id = $1', [seller.id])).toBe(2);
      });

      it('refuses the key with a different body, and keys of POST /listings are not bulk keys', async () => {
        await post('bulk-retry-2', [aListing().build()]).expect(200);
        const res = await post('bulk-retry-2', [aListing().with({ price: 5 }).build()]);
        expectError(res, 400, 'VALIDATION_ERROR');
        expect(fieldsOf(res)).toEqual(['Idempotency-Key']);

        await as(t, seller.liveKey)
          .post('/v1/listings')
          .set('Idempotency-Key', 'single-key')
          .send(aListing().build())
          .expect(201);
        const bulkWithSingleKey = await post('single-key', [aListing().build()]);
        expect(fieldsOf(bulkWithSingleKey)).toEqual(['Idempotency-Key']);
      });

      it('a request refused as a whole (51 items) does not use up the key', async () => {
        const refused = await post(
          'bulk-fix-1',
          Array.from({ length: 51 }, () => aListing().build()),
        );
        expectError(refused, 400, 'VALIDATION_ERROR');
        expect(fieldsOf(refused)).toEqual(['items']);
        const retry = await post('bulk-fix-1', [aListing().withExternalId('bulk-fix-1').build()]);
        expect(retry.status).toBe(200);
        expect(retry.headers['idempotent-replayed']).toBeUndefined();
        expect(retry.body.data).toMatchObject({ total: 1, created: 1 });
      });

      it('a 5xx is not kept: the same request with the same key runs again', async () => {
        const items = [aListing().withExternalId('bulk-5xx').build()];
        await withFailingListingInserts(t, "NEW.external_id = 'bulk-5xx'", async () => {
          expectError(await post('bulk-fix-2', items), 500, 'SERVER_ERROR');
        });
        const retry = await post('bulk-fix-2', items).expect(200);
        expect(retry.headers['idempotent-replayed']).toBeUndefined();
        expect(retry.body.data).toMatchObject({ total: 1, created: 1 });
      });

      it('creates once when identical requests race', async () => {
        const items = [aListing().withExternalId('race-bulk').build()];
        const answers = await Promise.all(
          Array.from({ length: 4 }, () => post('bulk-race', items)),
        );
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
        expect(new Set(answers.map((a) => a.body.data.results[0].data.id)).size).toBe(1);
        expect(
          await countRows('listings WHERE account_id = $1 AND external_id = $2', [
            seller.id,
            'race-bulk',
          ]),
        ).toBe(1);
      });
    });
  });

  describe('PATCH /v1/listings/bulk', () => {
    it('updates by id and by externalId; unknown ones fail alone with NOT_FOUND', async () => {
      const seller = await anAccount(t).build();
      const other = await anAccount(t).build();
      const byId = await createListing(seller.liveKey);
      const byExt = await createListing(seller.liveKey, aListing().withExternalId('upd-1').build());
      const draft = await createListing(seller.testKey);
      const foreign = await createListing(
        other.liveKey,
        aListing().withExternalId('upd-x').build(),
      );
      const items = [
        { id: byId.id, price: 111 },
        { externalId: 'upd-1', title: 'Renamed by externalId', phone: '+46 70 111 22 33' },
        { id: randomUUID(), price: 1 },
        { id: 'not-a-uuid', price: 1 },
        { externalId: 'no-such-ext', price: 1 },
        { id: foreign.id, price: 1 },
        { externalId: 'upd-x', price: 1 },
        { id: draft.id, price: 1 },
      ];
      const data = (await bulkUpdate(seller.liveKey, items).expect(200)).body.data;
      expect(Object.keys(data)).toEqual(['total', 'updated', 'failed', 'results']);
      expect(data).toMatchObject({ total: 8, updated: 2, failed: 6 });
      expect(outcomes(data.results)).toEqual(['ok', 'ok', ...Array(6).fill('NOT_FOUND')]);
      expect(idsOf(data.results).slice(0, 2)).toEqual([byId.id, byExt.id]);
      expect(await getListing(seller.liveKey, byId.id)).toMatchObject({ price: 111 });
      expect(await getListing(seller.liveKey, byExt.id)).toMatchObject({
        title: 'Renamed by externalId',
        phone: '+46701112233',
        externalId: 'upd-1',
      });
      expect(await getListing(other.liveKey, foreign.id)).toMatchObject({ price: foreign.price });
      expect(await getListing(seller.testKey, draft.id)).toMatchObject({ price: draft.price });
      expect(await eventsFor([byId.id, byExt.id, draft.id, foreign.id])).toEqual([
        'listing.created 0',
        'listing.created 1',
        'listing.created 2',
        'listing.created 3',
        'listing.updated 0',
        'listing.updated 1',
      ]);
    });

    it('refuses items with neither or both of id and externalId, or invalid fields, as PATCH /listings/:id would', async () => {
      const seller = await anAccount(t).build();
      const l = await createListing(seller.liveKey, aListing().withExternalId('val-1').build());
      const items = [
        { price: 5 },
        { id: l.id, externalId: 'val-1', price: 5 },
        { id: l.id, price: -1, colour: 'red' },
        { externalId: 'val-1', locationKommun: 'malmo' },
        { externalId: 'has space', price: 5 },
        { id: l.id, title: null },
        42,
      ];
      const data = (await bulkUpdate(seller.liveKey, items).expect(200)).body.data;
      expect(data).toMatchObject({ total: 7, updated: 0, failed: 7 });
      expect(outcomes(data.results)).toEqual(Array(7).fill('VALIDATION_ERROR'));
      expect(data.results.map((r: ItemResult) => r.error!.details!.map((d) => d.field))).toEqual([
        ['id'],
        ['id'],
        ['colour', 'price'],
        ['locationKommun'],
        ['externalId'],
        ['title'],
        ['body'],
      ]);
      const singles = await Promise.all(
        [{ price: -1, colour: 'red' }, { locationKommun: 'malmo' }, { title: null }].map((body) =>
          as(t, seller.liveKey).patch(`/v1/listings/${l.id}`).send(body),
        ),
      );
      expect([2, 3, 5].map((i) => data.results[i].error)).toEqual(
        singles.map((single) => single.body.error),
      );
      expect(await getListing(seller.liveKey, l.id)).toMatchObject({ price: l.price });
      expect(await eventsFor([l.id])).toEqual(['listing.created 0']);
    });

    it('refuses wrong states per item; later items see the changes of earlier ones', async () => {
      const seller = await anAccount(t).build();
      const sold = await createListing(seller.liveKey);
      await as(t, seller.liveKey).post(`/v1/listings/${sold.id}/sold`).expect(200);
      const a = await createListing(seller.liveKey, aListing().withExternalId('state-a').build());
      const b = await createListing(seller.liveKey, aListing().withExternalId('state-b').build());
      const items = [
        { id: sold.id, price: 1 },
        { id: a.id, externalId: null, price: 2 },
        { id: b.id, price: 3, images: [{ url: 'https://img.example.com/new.jpg' }] },
        { externalId: 'state-b', description: 'Second change to b in the same request' },
        { externalId: 'state-a', price: 4 },
      ];
      const data = (await bulkUpdate(seller.liveKey, items).expect(200)).body.data;
      expect(outcomes(data.results)).toEqual(['VALIDATION_ERROR', 'ok', 'ok', 'ok', 'NOT_FOUND']);
      const single = await as(t, seller.liveKey)
        .patch(`/v1/listings/${sold.id}`)
        .send({ price: 1 });
      expect(data.results[0].error).toEqual(single.body.error);
      expect(fieldsOf(single)).toEqual(['status']);
      expect(await getListing(seller.liveKey, sold.id)).toMatchObject({ price: sold.price });
      expect(await getListing(seller.liveKey, a.id)).toMatchObject({ externalId: null, price: 2 });
      const bAfter = await getListing(seller.liveKey, b.id);
      expect(bAfter).toMatchObject({
        price: 3,
        description: 'Second change to b in the same request',
      });
      expect(bAfter.images).toHaveLength(1);
      expect(await eventsFor([sold.id, a.id, b.id])).toEqual([
        'listing.created 0',
        'listing.sold 0',
        'listing.created 1',
        'listing.created 2',
        'listing.updated 1',
        'listing.updated 2',
        'listing.updated 2',
      ]);
    });
  });

  describe('DELETE /v1/listings/bulk', () => {
    it('soft-deletes each listing; already removed, unknown and malformed ids fail with NOT_FOUND', async () => {
      const seller = await anAccount(t).build();
      const [a, b, removed] = [
        await createListing(seller.liveKey),
        await createListing(seller.liveKey),
        await createListing(seller.liveKey),
      ];
      await as(t, seller.liveKey).delete(`/v1/listings/${removed.id}`).expect(200);
      const ids = [a.id, removed.id, randomUUID(), 'bulk', 7, b.id, a.id];
      const data = (await bulkDelete(seller.liveKey, ids).expect(200)).body.data;
      expect(Object.keys(data)).toEqual(['total', 'deleted', 'failed', 'results']);
      expect(data).toMatchObject({ total: 7, deleted: 2, failed: 5 });
      expect(outcomes(data.results)).toEqual([
        'ok',
        'NOT_FOUND',
        'NOT_FOUND',
        'NOT_FOUND',
        'NOT_FOUND',
        'ok',
        'NOT_FOUND',
      ]);
      const single = await as(t, seller.liveKey).delete(`/v1/listings/${removed.id}`);
      expect(data.results[1].error).toEqual(single.body.error);
      expect(data.results[1].error).not.toHaveProperty('details');
      for (const l of [a, b])
        expect(await getListing(seller.liveKey, l.id)).toMatchObject({ status: 'REMOVED' });
      expect((await as(t, seller.liveKey).get('/v1/listings')).body.pagination.total).toBe(0);
      expect(await eventsFor([a.id, b.id])).toEqual(['listing.created 0', 'listing.created 1']);
    });

    it("cannot delete another account's or another mode's listing", async () => {
      const seller = await anAccount(t).build();
      const other = await anAccount(t).build();
      const foreign = await createListing(other.liveKey);
      const draft = await createListing(seller.testKey);
      const data = (await bulkDelete(seller.liveKey, [foreign.id, draft.id]).expect(200)).body.data;
      expect(outcomes(data.results)).toEqual(['NOT_FOUND', 'NOT_FOUND']);
      expect(await getListing(other.liveKey, foreign.id)).toMatchObject({ status: 'ACTIVE' });
    });
  });

  describe('POST /v1/listings/bulk/sold', () => {
    it('marks ACTIVE listings sold; other states fail alone with 400 on status; events only for those sold', async () => {
      const seller = await anAccount(t).build();
      const [active1, active2, alreadySold, removed] = [
        await createListing(seller.liveKey, aListing().withExternalId('sold-1').build()),
        await createListing(seller.liveKey),
        await createListing(seller.liveKey),
        await createListing(seller.liveKey),
      ];
      await as(t, seller.liveKey).post(`/v1/listings/${alreadySold.id}/sold`).expect(200);
      await as(t, seller.liveKey).delete(`/v1/listings/${removed.id}`).expect(200);
      const ids = [active1.id, alreadySold.id, removed.id, randomUUID(), active2.id, active2.id];
      const data = (await bulkSold(seller.liveKey, ids).expect(200)).body.data;
      expect(Object.keys(data)).toEqual(['total', 'sold', 'failed', 'results']);
      expect(data).toMatchObject({ total: 6, sold: 2, failed: 4 });
      expect(outcomes(data.results)).toEqual([
        'ok',
        'VALIDATION_ERROR',
        'VALIDATION_ERROR',
        'NOT_FOUND',
        'ok',
        'VALIDATION_ERROR',
      ]);
      const single = await as(t, seller.liveKey).post(`/v1/listings/${alreadySold.id}/sold`);
      expect(data.results[1].error).toEqual(single.body.error);
      expect(fieldsOf(single)).toEqual(['status']);

      const sold = await getListing(seller.liveKey, active1.id);
      expect(sold).toMatchObject({ status: 'SOLD', soldAt: expect.any(String) });
      const events = await t.dataSource.query(
        `SELECT data FROM outbox_events WHERE event = 'listing.sold' AND account_id = $1 ORDER BY seq`,
        [seller.id],
      );
      expect(events.map((e: { data: { id: string } }) => e.data.id)).toEqual([
        alreadySold.id,
        active1.id,
        active2.id,
      ]);
      expect(events[1].data).toEqual({
        id: active1.id,
        externalId: 'sold-1',
        livemode: true,
        soldAt: sold.soldAt,
      });
    });

    it('refuses DRAFT listings of a test key like the single endpoint', async () => {
      const seller = await anAccount(t).build();
      const draft = await createListing(seller.testKey);
      const data = (await bulkSold(seller.testKey, [draft.id]).expect(200)).body.data;
      const single = await as(t, seller.testKey).post(`/v1/listings/${draft.id}/sold`);
      expect(data.results[0].error).toEqual(single.body.error);
      expect(data.results[0].error.code).toBe('VALIDATION_ERROR');
    });
  });

  describe('POST /v1/listings/bulk/renew', () => {
    const bulkRenew = (key: string, ids: unknown[]) =>
      as(t, key).post('/v1/listings/bulk/renew').send({ ids });

    it('renews ACTIVE and EXPIRED listings by 30 days; SOLD fails alone on status; unknown and foreign ids NOT_FOUND', async () => {
      const seller = await anAccount(t).build();
      const other = await anAccount(t).build();
      const [active, expired, sold] = [
        await createListing(seller.liveKey),
        await createListing(seller.liveKey),
        await createListing(seller.liveKey),
      ];
      const foreign = await createListing(other.liveKey);
      await t.dataSource.query(
        `UPDATE listings SET status = 'EXPIRED', expired_at = now(), expires_at = now() - interval '1 day' WHERE id = $1`,
        [expired.id],
      );
      await as(t, seller.liveKey).post(`/v1/listings/${sold.id}/sold`).expect(200);
      const ids = [active.id, expired.id, sold.id, randomUUID(), foreign.id];
      const data = (await bulkRenew(seller.liveKey, ids).expect(200)).body.data;
      expect(Object.keys(data)).toEqual(['total', 'renewed', 'failed', 'results']);
      expect(data).toMatchObject({ total: 5, renewed: 2, failed: 3 });
      expect(outcomes(data.results)).toEqual([
        'ok',
        'ok',
        'VALIDATION_ERROR',
        'NOT_FOUND',
        'NOT_FOUND',
      ]);
      const single = await as(t, seller.liveKey).post(`/v1/listings/${sold.id}/renew`);
      expect(data.results[2].error).toEqual(single.body.error);
      expect(fieldsOf(single)).toEqual(['status']);

      const days = (iso: string) => (Date.parse(iso) - Date.now()) / 86_400_000;
      const renewedActive = await getListing(seller.liveKey, active.id);
      expect(days(renewedActive.expiresAt)).toBeGreaterThan(59); // from its current expiry
      const revived = await getListing(seller.liveKey, expired.id);
      expect(revived.status).toBe('ACTIVE');
      expect(days(revived.expiresAt)).toBeGreaterThan(29);
      expect(await getListing(other.liveKey, foreign.id)).toMatchObject({
        expiresAt: foreign.expiresAt,
      });
      expect(await eventsFor([active.id, expired.id, sold.id])).toEqual([
        'listing.created 0',
        'listing.created 1',
        'listing.created 2',
        'listing.sold 2',
        'listing.updated 0',
        'listing.updated 1',
      ]);
    });

    it.each([
      ['no ids', () => []],
      ['51 ids', (id: string) => [id, ...Array.from({ length: 50 }, () => randomUUID())]],
      ['an id that is not a UUID', (id: string) => [id, 'not-a-uuid']],
      ['a number', (id: string) => [id, 42]],
    ])('refuses %s with 400 on ids and renews nothing', async (_, ids) => {
      const seller = await anAccount(t).build();
      const listing = await createListing(seller.liveKey);
      const res = await bulkRenew(seller.liveKey, ids(listing.id));
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual(['ids']);
      expect((await getListing(seller.liveKey, listing.id)).expiresAt).toBe(listing.expiresAt);
    });
  });

  describe('racing requests on the same listings, in opposite orders', () => {
    const ROUNDS = 4;
    let seller: TestAccount;
    beforeAll(async () => {
      seller = await anAccount(t).build();
    });

    const fiftyListings = async (prefix: string) => {
      const items = Array.from({ length: 50 }, (_, i) =>
        aListing().withExternalId(`${prefix}-${i}`).build(),
      );
      const data = (await bulkCreate(seller.liveKey, items).expect(200)).body.data;
      expect(data.created).toBe(50);
      return idsOf(data.results) as string[];
    };

    it('an item naming an externalId no listing can have fails alone, before any lock', async () => {
      const [id] = await fiftyListings('lock-nul');
      const res = await bulkUpdate(seller.liveKey, [
        { externalId: 'lock-nul-0', price: 7 },
        { externalId: 'nul\u0000id', price: 7 },
        { id: 'not-a-uuid', price: 7 },
      ]).expect(200);
      expect(outcomes(res.body.data.results)).toEqual(['ok', 'VALIDATION_ERROR', 'NOT_FOUND']);
      expect((await getListing(seller.liveKey, id)).price).toBe(7);
    });

    it('two updates of the same 50 both succeed, every item', async () => {
      const externalIds = Array.from({ length: 50 }, (_, i) => `race-upd-${i}`);
      await fiftyListings('race-upd');
      for (let round = 0; round < ROUNDS; round++) {
        const patch = (order: string[], price: number) =>
          bulkUpdate(
            seller.liveKey,
            order.map((externalId) => ({ externalId, price })),
          );
        const answers = await Promise.all([
          patch(externalIds, 1000 + round),
          patch([...externalIds].reverse(), 2000 + round),
        ]);
        expect(answers.map((a) => [a.status, a.body.data?.updated])).toEqual([
          [200, 50],
          [200, 50],
        ]);
      }
    });

    it('a sale and a delete of the same 50 both answer 200, each listing taken by one of them', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const ids = await fiftyListings(`race-sd-${round}`);
        const [sold, deleted] = await Promise.all([
          bulkSold(seller.liveKey, ids),
          bulkDelete(seller.liveKey, [...ids].reverse()),
        ]);
        expect([sold.status, deleted.status]).toEqual([200, 200]);
        expect(deleted.body.data.deleted).toBe(50); // a SOLD listing can be deleted too
        expect(sold.body.data.sold + sold.body.data.failed).toBe(50);
      }
    });

    it('two creates of the same 50 externalIds make 50 listings, each created once', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const items = Array.from({ length: 50 }, (_, i) =>
          aListing().withExternalId(`race-new-${round}-${i}`).build(),
        );
        const answers = await Promise.all([
          bulkCreate(seller.liveKey, items),
          bulkCreate(seller.liveKey, [...items].reverse()),
        ]);
        expect(answers.map((a) => a.status)).toEqual([200, 200]);
        expect(answers[0].body.data.created + answers[1].body.data.created).toBe(50);
        expect(
          await countRows(`listings WHERE account_id = $1 AND external_id LIKE $2`, [
            seller.id,
            `race-new-${round}-%`,
          ]),
        ).toBe(50);
      }
    });
  });
});
