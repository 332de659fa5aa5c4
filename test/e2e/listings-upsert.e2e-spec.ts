import { anAccount, as, TestAccount } from '../support/factories';
import { expectError, fieldsOf } from '../support/envelope';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';

describe('PUT /v1/listings/by-external-id/:externalId', () => {
  let t: TestApp;
  let seller: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    seller = await anAccount(t).build();
  });
  afterAll(() => t.close());

  const put = (externalId: string, body: object, key = seller.liveKey) =>
    as(t, key)
      .put(`/v1/listings/by-external-id/${encodeURIComponent(externalId)}`)
      .send(body);
  const eventsOf = async (id: string) =>
    (await t.dataSource.query(
      `SELECT event, data FROM outbox_events WHERE data->>'id' = $1 ORDER BY seq`,
      [id],
    )) as { event: string; data: { changedFields?: string[] } }[];

  it('creates with 201, then updates with 200', async () => {
    const created = await put('feed-1', aListing().with({ phone: '+46701234567' }).build()).expect(
      201,
    );
    expect(created.body.data).toMatchObject({
      externalId: 'feed-1',
      status: 'ACTIVE',
      phone: '+46701234567',
    });
    const updated = await put('feed-1', aListing().with({ price: 1234 }).build()).expect(200);
    expect(updated.body.data).toMatchObject({ id: created.body.data.id, price: 1234, phone: null });
    const events = await eventsOf(created.body.data.id);
    expect(events.map((e) => e.event)).toEqual(['listing.created', 'listing.updated']);
    expect(events[1].data.changedFields?.sort()).toEqual(['phone', 'price']);
  });

  it('keeps updatedAt and emits nothing when the representation is unchanged', async () => {
    const body = aListing().with({ title: 'Unchanged feed item' }).withImages(2).build();
    const first = await put('feed-2', body).expect(201);
    const again = await put('feed-2', body).expect(200);
    expect(again.body.data).toEqual(first.body.data);
    expect((await eventsOf(first.body.data.id)).map((e) => e.event)).toEqual(['listing.created']);
  });

  it('keeps the gallery when images are absent and replaces it when present', async () => {
    const first = await put('feed-3', aListing().withImages(2).build()).expect(201);
    const kept = await put('feed-3', aListing().with({ price: 5 }).build()).expect(200);
    expect(kept.body.data.images).toEqual(first.body.data.images);
    const replaced = await put(
      'feed-3',
      aListing()
        .with({ price: 5, images: [{ url: 'https://img.example.com/new.jpg' }] })
        .build(),
    ).expect(200);
    expect(replaced.body.data.images.map((i: { url: string }) => i.url)).toEqual([
      'https://img.example.com/new.jpg',
    ]);
  });

  it('keeps the ids of the images a replaced gallery still lists, and a new id for a new one', async () => {
    const first = await put('feed-3b', aListing().withImages(2).build()).expect(201);
    const images = [...first.body.data.images, { url: 'https://img.example.com/added.jpg' }];
    const grown = await put(
      'feed-3b',
      aListing()
        .with({ images: images.map((i: { url: string }) => ({ url: i.url })) })
        .build(),
    ).expect(200);
    const [a, b] = first.body.data.images;
    expect(grown.body.data.images).toEqual([
      a,
      b,
      {
        id: expect.any(String),
        url: 'https://img.example.com/added.jpg',
        order: 2,
        status: 'pending',
        width: null,
        height: null,
        variants: null,
        error: null,
      },
    ]);
    expect([a.id, b.id]).not.toContain(grown.body.data.images[2].id);
    const read = await as(t, seller.liveKey).get(`/v1/listings/${first.body.data.id}`).expect(200);
    expect(read.body.data.images).toEqual(grown.body.data.images);
  });

  it('refuses to update a SOLD listing (400 on status)', async () => {
    const first = await put('feed-4', aListing().build()).expect(201);
    await as(t, seller.liveKey).post(`/v1/listings/${first.body.data.id}/sold`).expect(200);
    const res = await put('feed-4', aListing().with({ price: 1 }).build());
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(res)).toEqual(['status']);
  });

  it('creates a new listing when the old one with this externalId was removed', async () => {
    const first = await put('feed-5', aListing().build()).expect(201);
    await as(t, seller.liveKey).delete(`/v1/listings/${first.body.data.id}`).expect(200);
    const second = await put('feed-5', aListing().build()).expect(201);
    expect(second.body.data.id).not.toBe(first.body.data.id);
  });

  it('validates like a create, and the path externalId', async () => {
    expect(fieldsOf(await put('feed-6', aListing().without('price').build()))).toEqual(['price']);
    expect(fieldsOf(await put('has space', aListing().build()))).toEqual(['externalId']);
    expect(fieldsOf(await put('feed-6', aListing().withExternalId('other').build()))).toEqual([
      'externalId',
    ]);
  });

  it('refuses . and .. as externalIds: URL parsers drop them from a PUT path, even as %2E', async () => {
    for (const externalId of ['.', '..']) {
      const created = await as(t, seller.liveKey)
        .post('/v1/listings')
        .send(aListing().withExternalId(externalId).build());
      expect(expectError(created, 400, 'VALIDATION_ERROR').details).toEqual([
        {
          field: 'externalId',
          message:
            'externalId must be 1–128 printable characters without whitespace or /, and not . or ..',
        },
      ]);
    }
    await as(t, seller.liveKey)
      .post('/v1/listings')
      .send(aListing().withExternalId('...').build())
      .expect(201);
  });

  it('names a shape error, an unknown kommun, a bad attribute and the path in one 400', async () => {
    const body = aListing().build();
    const bad = {
      ...body,
      price: -5,
      locationKommun: 'atlantis',
      attributes: { ...(body.attributes as object), modelYear: 'new' },
    };
    for (const existing of [false, true]) {
      if (existing) await put('feed-one-round', aListing().build()).expect(201);
      const res = await put('feed-one-round', bad);
      const error = expectError(res, 400, 'VALIDATION_ERROR');
      expect(error.details).toEqual([
        { field: 'price', message: 'price must not be less than 0' },
        { field: 'attributes.modelYear', message: 'modelYear must be an integer' },
        {
          field: 'locationKommun',
          message: "locationKommun 'atlantis' is not a kommun slug from GET /v1/locations",
        },
      ]);
      expect(error.message).toBe('price must not be less than 0');
    }
    expect(fieldsOf(await put('has space', bad))).toEqual([
      'price',
      'externalId',
      'attributes.modelYear',
      'locationKommun',
    ]);
  });

  it('looks up per account and mode', async () => {
    const live = await put('feed-7', aListing().build()).expect(201);
    const test = await put('feed-7', aListing().build(), seller.testKey).expect(201);
    expect(test.body.data).toMatchObject({ status: 'DRAFT', livemode: false });
    expect(test.body.data.id).not.toBe(live.body.data.id);
  });

  it('makes one listing when 10 PUTs of a new externalId race, without a 500', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        put(
          'race-ext',
          aListing()
            .with({ price: 1000 + i })
            .build(),
        ),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(9);
    expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(1);
    const rows = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM listings WHERE external_id = 'race-ext'`,
    );
    expect(rows[0].n).toBe(1);
  });
});
