import { anAccount, as, TestAccount } from '../support/factories';
import { expectError, expectMeta, fieldsOf } from '../support/envelope';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';

const RECORD_FIELDS = [
  'attributes',
  'categorySlug',
  'condition',
  'createdAt',
  'currency',
  'description',
  'expiresAt',
  'externalId',
  'id',
  'images',
  'livemode',
  'locationKommun',
  'locationLan',
  'phone',
  'price',
  'publishedAt',
  'removedAt',
  'soldAt',
  'status',
  'title',
  'updatedAt',
];

describe('Listings: create, read, update, delete', () => {
  let t: TestApp;
  let seller: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    seller = await anAccount(t).build();
  });
  afterAll(() => t.close());

  const live = () => as(t, seller.liveKey);

  describe('POST /v1/listings', () => {
    it('creates an ACTIVE listing with a live key, returning the full record', async () => {
      const res = await live()
        .post('/v1/listings')
        .send(aListing().with({ phone: '+46 70-123 45 67' }).withImages(2).build())
        .expect(201);
      expectMeta(res);
      const l = res.body.data;
      expect(Object.keys(l).sort()).toEqual(RECORD_FIELDS);
      expect(l).toMatchObject({
        status: 'ACTIVE',
        livemode: true,
        currency: 'SEK',
        price: 89000,
        phone: '+46701234567',
        externalId: null,
        soldAt: null,
        removedAt: null,
        title: 'Volvo V70 2.4 D5 Momentum',
      });
      expect(l.images.map((i: { order: number }) => i.order)).toEqual([0, 1]);
      // Created, last updated and published at one instant; expiring exactly 30 days after it.
      expect(l.updatedAt).toBe(l.createdAt);
      expect(l.publishedAt).toBe(l.createdAt);
      expect(Date.parse(l.expiresAt) - Date.parse(l.publishedAt)).toBe(30 * 86_400_000);
    });

    it('creates a DRAFT listing with a test key, which never expires', async () => {
      const res = await as(t, seller.testKey)
        .post('/v1/listings')
        .send(aListing().build())
        .expect(201);
      expect(res.body.data).toMatchObject({
        status: 'DRAFT',
        livemode: false,
        publishedAt: null,
        expiresAt: null,
      });
    });

    it('trims the title and counts its length after trimming', async () => {
      const res = await live()
        .post('/v1/listings')
        .send(aListing().with({ title: '   Saab 900   ' }).build())
        .expect(201);
      expect(res.body.data.title).toBe('Saab 900');
      expect(
        fieldsOf(
          await live()
            .post('/v1/listings')
            .send(aListing().with({ title: '  ab  ' }).build()),
        ),
      ).toEqual(['title']);
    });

    it.each([
      ['title', { title: 'Kort' }],
      ['title', { title: 'x'.repeat(121) }],
      ['description', { description: '' }],
      ['price', { price: -1 }],
      ['price', { price: 1_000_000_001 }],
      ['price', { price: 10.5 }],
      ['price', { price: '100' }],
      ['condition', { condition: 'MINT' }],
      ['phone', { phone: '0701234567' }],
      ['phone', { phone: '+12' }],
      ['externalId', { externalId: 'has space' }],
      ['externalId', { externalId: 'a/b' }],
      ['externalId', { externalId: 'x'.repeat(129) }],
      ['categorySlug', { categorySlug: 'vehicles' }],
      ['categorySlug', { categorySlug: 'spaceships' }],
      ['locationLan', { locationLan: 'atlantis' }],
      ['locationKommun', { locationKommun: 'goteborg' }],
      ['locationKommun', { locationKommun: 'nowhere' }],
      [
        'attributes.fuel',
        {
          attributes: {
            make: 'volvo',
            model: 'V70',
            modelYear: 2012,
            mileageKm: 1,
            fuel: 'coal',
            gearbox: 'manual',
          },
        },
      ],
      [
        'attributes.make',
        {
          attributes: {
            model: 'V70',
            modelYear: 2012,
            mileageKm: 1,
            fuel: 'diesel',
            gearbox: 'manual',
          },
        },
      ],
      [
        'attributes.wings',
        {
          attributes: {
            make: 'volvo',
            model: 'V70',
            modelYear: 2012,
            mileageKm: 1,
            fuel: 'diesel',
            gearbox: 'manual',
            wings: 2,
          },
        },
      ],
      ['images[0].url', { images: [{ url: 'ftp://x.example.com/a.jpg' }] }],
      ['images[0].url', { images: [{}] }],
      ['images', { images: [{ url: 'https://x.example.com/a.jpg' }, []] }],
      [
        'images[1].order',
        {
          images: [
            { url: 'https://x.example.com/a.jpg' },
            { url: 'https://x.example.com/b.jpg', order: 30 },
          ],
        },
      ],
      [
        'images',
        {
          images: Array.from({ length: 31 }, (_, i) => ({ url: `https://x.example.com/${i}.jpg` })),
        },
      ],
      ['colour', { colour: 'red' }],
    ])('refuses a bad %s with 400 naming it', async (field, change) => {
      const res = await live().post('/v1/listings').send(aListing().with(change).build());
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toContain(field);
    });

    it.each([
      'title',
      'description',
      'price',
      'condition',
      'categorySlug',
      'locationLan',
      'locationKommun',
    ])('requires %s', async (field) => {
      const res = await live().post('/v1/listings').send(aListing().without(field).build());
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toContain(field);
    });

    it('names a shape error, an unknown kommun and a bad attribute in one 400, writing nothing', async () => {
      const before = await t.dataSource.query('SELECT count(*)::int AS n FROM listings');
      const body = aListing().build();
      const res = await live()
        .post('/v1/listings')
        .send({
          ...body,
          price: -5,
          locationKommun: 'atlantis',
          attributes: { ...(body.attributes as object), modelYear: 'new' },
          images: [{ url: 'https://img.example.com/0.jpg' }, { url: 'ftp://img.example.com/1' }],
        });
      const error = expectError(res, 400, 'VALIDATION_ERROR');
      expect(error.details).toEqual([
        { field: 'price', message: 'price must not be less than 0' },
        { field: 'images[1].url', message: 'url must be an http(s) URL' },
        { field: 'attributes.modelYear', message: 'modelYear must be an integer' },
        {
          field: 'locationKommun',
          message: "locationKommun 'atlantis' is not a kommun slug from GET /v1/locations",
        },
      ]);
      expect(error.message).toBe('price must not be less than 0');
      expect(await t.dataSource.query('SELECT count(*)::int AS n FROM listings')).toEqual(before);
    });

    it('names every reference error of a body whose shape is valid: an unknown län and kommun both', async () => {
      const res = await live()
        .post('/v1/listings')
        .send(aListing().with({ locationLan: 'atlantis', locationKommun: 'nowhere' }).build());
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual(['locationLan', 'locationKommun']);
    });

    it('refuses an externalId already used by a live listing of the account, and writes nothing', async () => {
      await live()
        .post('/v1/listings')
        .send(aListing().withExternalId('stock-1').build())
        .expect(201);
      const before = await t.dataSource.query('SELECT count(*)::int AS n FROM listings');
      const res = await live()
        .post('/v1/listings')
        .send(aListing().withExternalId('stock-1').build());
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual(['externalId']);
      expect(await t.dataSource.query('SELECT count(*)::int AS n FROM listings')).toEqual(before);
    });

    it('scopes externalId per mode and per account', async () => {
      await live()
        .post('/v1/listings')
        .send(aListing().withExternalId('shared-1').build())
        .expect(201);
      await as(t, seller.testKey)
        .post('/v1/listings')
        .send(aListing().withExternalId('shared-1').build())
        .expect(201);
      const other = await anAccount(t).build();
      await as(t, other.liveKey)
        .post('/v1/listings')
        .send(aListing().withExternalId('shared-1').build())
        .expect(201);
    });

    it('frees an externalId when its listing is removed', async () => {
      const first = await live()
        .post('/v1/listings')
        .send(aListing().withExternalId('reuse-1').build())
        .expect(201);
      await live().delete(`/v1/listings/${first.body.data.id}`).expect(200);
      await live()
        .post('/v1/listings')
        .send(aListing().withExternalId('reuse-1').build())
        .expect(201);
    });
  });

  describe('GET /v1/listings/:id', () => {
    it('returns the listing, and 404 for another account, another mode, a random or malformed id', async () => {
      const created = await live().post('/v1/listings').send(aListing().build()).expect(201);
      const id = created.body.data.id;
      expect((await live().get(`/v1/listings/${id}`).expect(200)).body.data).toEqual(
        created.body.data,
      );
      const stranger = await anAccount(t).build();
      expectError(await as(t, stranger.liveKey).get(`/v1/listings/${id}`), 404, 'NOT_FOUND');
      expectError(await as(t, seller.testKey).get(`/v1/listings/${id}`), 404, 'NOT_FOUND');
      expectError(
        await live().get('/v1/listings/6b0d3c1e-2b0a-4c5e-9f6a-1d2e3f4a5b6c'),
        404,
        'NOT_FOUND',
      );
      expectError(await live().get('/v1/listings/not-a-uuid'), 404, 'NOT_FOUND');
    });
  });

  describe('PATCH /v1/listings/:id', () => {
    it('changes only the fields sent, validating the merged listing', async () => {
      const created = (
        await live()
          .post('/v1/listings')
          .send(aListing().with({ phone: '+46701234567' }).build())
          .expect(201)
      ).body.data;
      const res = await live()
        .patch(`/v1/listings/${created.id}`)
        .send({ price: 79000, phone: null })
        .expect(200);
      expect(res.body.data).toMatchObject({
        price: 79000,
        phone: null,
        title: created.title,
        description: created.description,
      });
      expect(Date.parse(res.body.data.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));

      const badKommun = await live()
        .patch(`/v1/listings/${created.id}`)
        .send({ locationLan: 'skane' });
      expect(fieldsOf(badKommun)).toEqual(['locationKommun']);
      await live()
        .patch(`/v1/listings/${created.id}`)
        .send({ locationLan: 'skane', locationKommun: 'malmo' })
        .expect(200);
    });

    it("names a shape error with the merged listing's kommun and attribute errors in one 400", async () => {
      const created = (await live().post('/v1/listings').send(aListing().build()).expect(201)).body
        .data;
      // The kommun is checked against the listing's own län, the attributes against its category.
      const res = await live()
        .patch(`/v1/listings/${created.id}`)
        .send({
          price: 'free',
          title: null,
          locationKommun: 'malmo',
          attributes: { ...created.attributes, modelYear: 1800 },
        });
      const error = expectError(res, 400, 'VALIDATION_ERROR');
      expect(error.details).toEqual([
        { field: 'price', message: 'price must be an integer number' },
        { field: 'title', message: 'title cannot be null' },
        { field: 'attributes.modelYear', message: 'modelYear must be at least 1900' },
        {
          field: 'locationKommun',
          message: "locationKommun 'malmo' lies in skane, not in stockholm",
        },
      ]);
      expect(error.message).toBe('price must be an integer number');
      const after = await live().get(`/v1/listings/${created.id}`).expect(200);
      expect(after.body.data.updatedAt).toBe(created.updatedAt);
    });

    it('refuses null for a required field and unknown fields', async () => {
      const created = (await live().post('/v1/listings').send(aListing().build()).expect(201)).body
        .data;
      expect(
        fieldsOf(await live().patch(`/v1/listings/${created.id}`).send({ title: null })),
      ).toEqual(['title']);
      expect(
        fieldsOf(await live().patch(`/v1/listings/${created.id}`).send({ status: 'SOLD' })),
      ).toEqual(['status']);
      expect(
        fieldsOf(await live().patch(`/v1/listings/${created.id}`).send({ price: 'free' })),
      ).toEqual(['price']);
    });

    it('clears the gallery with images: null, like any optional field', async () => {
      const created = (
        await live().post('/v1/listings').send(aListing().withImages(2).build()).expect(201)
      ).body.data;
      const res = await live()
        .patch(`/v1/listings/${created.id}`)
        .send({ images: null })
        .expect(200);
      expect(res.body.data.images).toEqual([]);
      await live()
        .post('/v1/listings')
        .send(aListing().with({ images: null }).build())
        .expect(201);
    });

    it("refuses taking another listing's externalId", async () => {
      await live()
        .post('/v1/listings')
        .send(aListing().withExternalId('taken-9').build())
        .expect(201);
      const other = (await live().post('/v1/listings').send(aListing().build()).expect(201)).body
        .data;
      expect(
        fieldsOf(await live().patch(`/v1/listings/${other.id}`).send({ externalId: 'taken-9' })),
      ).toEqual(['externalId']);
    });

    it("is 404 for another account's listing", async () => {
      const created = (await live().post('/v1/listings').send(aListing().build()).expect(201)).body
        .data;
      const stranger = await anAccount(t).build();
      expectError(
        await as(t, stranger.liveKey).patch(`/v1/listings/${created.id}`).send({ price: 1 }),
        404,
        'NOT_FOUND',
      );
    });
  });

  describe('DELETE /v1/listings/:id', () => {
    it('soft-deletes: REMOVED, still readable by id, hidden from the list, 404 the second time', async () => {
      const created = (await live().post('/v1/listings').send(aListing().build()).expect(201)).body
        .data;
      const res = await live().delete(`/v1/listings/${created.id}`).expect(200);
      expect(res.body.data).toMatchObject({ status: 'REMOVED', removedAt: expect.any(String) });
      expect((await live().get(`/v1/listings/${created.id}`).expect(200)).body.data.status).toBe(
        'REMOVED',
      );
      const ids = (await live().get('/v1/listings?limit=100').expect(200)).body.data.map(
        (l: { id: string }) => l.id,
      );
      expect(ids).not.toContain(created.id);
      expectError(await live().delete(`/v1/listings/${created.id}`), 404, 'NOT_FOUND');
    });
  });
});

describe('Listings: validation messages', () => {
  let t: TestApp;
  let seller: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    seller = await anAccount(t).build();
  });
  afterAll(() => t.close());

  it.each([
    ['a missing price', aListing().without('price').build(), 'price is required'],
    [
      'a price of the wrong type',
      aListing().with({ price: 'free' }).build(),
      'price must be an integer number',
    ],
    [
      'a price out of range',
      aListing().with({ price: -5 }).build(),
      'price must not be less than 0',
    ],
    ['a missing title', aListing().without('title').build(), 'title is required'],
    [
      'an image without a url',
      aListing()
        .with({ images: [{}] })
        .build(),
      'url is required',
    ],
    [
      'an image url of the wrong type',
      aListing()
        .with({ images: [{ url: 42 }] })
        .build(),
      'url must be an http(s) URL',
    ],
  ])('names the first broken rule for %s', async (_name, body, message) => {
    const res = await as(t, seller.liveKey).post('/v1/listings').send(body);
    const field = message.startsWith('url') ? 'images[0].url' : message.split(' ')[0];
    expect(res.body.error.details).toEqual([{ field, message }]);
  });
});
