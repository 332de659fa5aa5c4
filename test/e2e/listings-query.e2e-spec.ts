import { anAccount, as, TestAccount } from '../support/factories';
import { expectError, fieldsOf } from '../support/envelope';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';
import { ListingCountsService } from '../../src/listings/listing-counts.service';
import { WebhookReceiver } from '../support/webhook-receiver';

interface Row {
  id: string;
  price: number;
  createdAt: string;
  updatedAt: string;
  status: string;
  images: { id: string; url: string; order: number }[];
}

describe('GET /v1/listings', () => {
  let t: TestApp;
  let seller: TestAccount;
  let all: Row[];

  /** 25 listings, prices with ties, creation times with ties, a few in other states. */
  beforeAll(async () => {
    t = await createTestApp();
    seller = await anAccount(t).build();
    const prices = [500, 100, 300, 100, 200];
    for (let i = 0; i < 25; i++) {
      await as(t, seller.liveKey)
        .post('/v1/listings')
        .send(
          aListing()
            .with({ price: prices[i % 5], title: `Listing number ${i}` })
            .withExternalId(`ext-${i}`)
            .build(),
        )
        .expect(201);
    }
    // Ties on created_at must still page stably.
    await t.dataSource.query(
      `UPDATE listings SET created_at = date_trunc('minute', created_at) WHERE external_id IN ('ext-3', 'ext-4', 'ext-5')`,
    );
    const rows = await t.dataSource.query(
      `SELECT id FROM listings WHERE external_id IN ('ext-0', 'ext-1', 'ext-2', 'ext-6')`,
    );
    await as(t, seller.liveKey).post(`/v1/listings/${rows[0].id}/sold`).expect(200);
    await as(t, seller.liveKey).delete(`/v1/listings/${rows[1].id}`).expect(200);
    await as(t, seller.liveKey).delete(`/v1/listings/${rows[2].id}`).expect(200);
    await t.dataSource.query(`UPDATE listings SET status = 'EXPIRED' WHERE id = $1`, [rows[3].id]);
    all = await pageThrough('');
  });
  afterAll(() => t.close());

  async function pageThrough(query: string, limit = 7): Promise<Row[]> {
    const rows: Row[] = [];
    for (let page = 1; ; page++) {
      const res = await as(t, seller.liveKey)
        .get(`/v1/listings?limit=${limit}&page=${page}${query}`)
        .expect(200);
      rows.push(...res.body.data);
      if (!res.body.pagination.hasMore) return rows;
    }
  }

  it("lists only the caller's own listings of the key's mode, without REMOVED ones", async () => {
    expect(all).toHaveLength(23);
    expect(all.every((l) => l.status !== 'REMOVED')).toBe(true);
    const stranger = await anAccount(t).build();
    await as(t, stranger.liveKey).post('/v1/listings').send(aListing().build()).expect(201);
    expect(
      (await as(t, stranger.liveKey).get('/v1/listings').expect(200)).body.pagination.total,
    ).toBe(1);
    expect(
      (await as(t, seller.testKey).get('/v1/listings').expect(200)).body.pagination.total,
    ).toBe(0);
  });

  it('gives exact pagination numbers', async () => {
    const res = await as(t, seller.liveKey).get('/v1/listings?limit=10&page=3').expect(200);
    expect(res.body.pagination).toEqual({
      page: 3,
      limit: 10,
      total: 23,
      pages: 3,
      hasMore: false,
    });
    expect(res.body.data).toHaveLength(3);
    const first = await as(t, seller.liveKey).get('/v1/listings').expect(200);
    expect(first.body.pagination).toEqual({
      page: 1,
      limit: 20,
      total: 23,
      pages: 2,
      hasMore: true,
    });
    const beyond = await as(t, seller.liveKey).get('/v1/listings?page=9').expect(200);
    expect(beyond.body.data).toEqual([]);
    // Past the last page the page is empty but the total still answers.
    expect(beyond.body.pagination).toMatchObject({ total: 23, pages: 2, hasMore: false });
    const statusBeyond = await as(t, seller.liveKey).get('/v1/listings?status=SOLD&page=2');
    expect(statusBeyond.body.pagination).toMatchObject({ total: 1, pages: 1 });
  });

  it('keeps totals exact before and after the deltas are folded', async () => {
    await t.app.get(ListingCountsService).fold();
    expect(
      (await as(t, seller.liveKey).get('/v1/listings').expect(200)).body.pagination.total,
    ).toBe(23);
    const res = await as(t, seller.liveKey).get('/v1/listings?status=ACTIVE').expect(200);
    expect(res.body.pagination.total).toBe(21);
    expect(
      (await as(t, seller.liveKey).get('/v1/listings?status=REMOVED').expect(200)).body.pagination
        .total,
    ).toBe(2);
  });

  it.each([
    [
      'newest',
      (a: Row, b: Row) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id),
    ],
    [
      'oldest',
      (a: Row, b: Row) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
    ],
    ['price_asc', (a: Row, b: Row) => a.price - b.price || a.id.localeCompare(b.id)],
    ['price_desc', (a: Row, b: Row) => b.price - a.price || b.id.localeCompare(a.id)],
  ])(
    'sorts %s with ties broken by id, never repeating or skipping across pages',
    async (sort, compare) => {
      const paged = await pageThrough(`&sort=${sort}`);
      expect(paged.map((l) => l.id)).toEqual([...all].sort(compare).map((l) => l.id));
      expect(new Set(paged.map((l) => l.id)).size).toBe(23);
    },
  );

  it('lists every record, gallery included, exactly as GET by id answers it, on every page', async () => {
    // Galleries are aggregated after the page is cut: a later page must carry its own rows' images.
    const own = await anAccount(t).build();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const listing = i === 3 ? aListing().withImages(3) : aListing();
      const res = await as(t, own.liveKey).post('/v1/listings').send(listing.build()).expect(201);
      ids.push(res.body.data.id);
    }
    const listed: Row[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await as(t, own.liveKey)
        .get(`/v1/listings?sort=oldest&limit=2&page=${page}`)
        .expect(200);
      listed.push(...res.body.data);
    }
    expect(listed.map((l) => l.id)).toEqual(ids);
    expect(listed[3].images).toHaveLength(3);
    for (const record of listed) {
      const { body } = await as(t, own.liveKey).get(`/v1/listings/${record.id}`).expect(200);
      expect(record).toEqual(body.data);
    }
  });

  it('filters by status, including REMOVED when asked', async () => {
    expect((await pageThrough('&status=SOLD')).map((l) => l.status)).toEqual(['SOLD']);
    expect((await pageThrough('&status=EXPIRED')).map((l) => l.status)).toEqual(['EXPIRED']);
    expect((await pageThrough('&status=REMOVED')).map((l) => l.status)).toEqual([
      'REMOVED',
      'REMOVED',
    ]);
    const beyond = await as(t, seller.liveKey)
      .get('/v1/listings?status=REMOVED&page=4')
      .expect(200);
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.pagination).toMatchObject({ total: 2, pages: 1, hasMore: false });
  });

  it('filters by exact externalId', async () => {
    const res = await as(t, seller.liveKey).get('/v1/listings?externalId=ext-7').expect(200);
    expect(res.body.data.map((l: { externalId: string }) => l.externalId)).toEqual(['ext-7']);
    expect(res.body.pagination.total).toBe(1);
    const none = await as(t, seller.liveKey).get('/v1/listings?externalId=ext-').expect(200);
    expect(none.body.data).toEqual([]);
    expect(none.body.pagination.total).toBe(0);
    const beyond = await as(t, seller.liveKey).get('/v1/listings?externalId=ext-7&page=2');
    expect(beyond.body).toMatchObject({ data: [], pagination: { total: 1, pages: 1 } });
  });

  it('returns what changed after updatedSince, oldest change first', async () => {
    const since = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const [a, b] = all.filter((l) => l.status === 'ACTIVE');
    await as(t, seller.liveKey).patch(`/v1/listings/${b.id}`).send({ price: 1 }).expect(200);
    await as(t, seller.liveKey).patch(`/v1/listings/${a.id}`).send({ price: 2 }).expect(200);
    const res = await as(t, seller.liveKey)
      .get(`/v1/listings?updatedSince=${encodeURIComponent(since)}`)
      .expect(200);
    expect(res.body.data.map((l: Row) => l.id)).toEqual([b.id, a.id]);
    expect(res.body.pagination.total).toBe(2);
  });

  describe('incremental sync over a burst sharing one updatedAt (a 50-item bulk)', () => {
    let burst: TestAccount;
    let updatedAt: string;
    const sync = (query: string) => as(t, burst.liveKey).get(`/v1/listings?${query}`).expect(200);

    beforeAll(async () => {
      burst = await anAccount(t).build();
      const items = Array.from({ length: 50 }, (_, i) =>
        aListing().withExternalId(`burst-${i}`).build(),
      );
      await as(t, burst.liveKey).post('/v1/listings/bulk').send({ items }).expect(200);
      const stamps = new Set<string>(
        (await sync('limit=100')).body.data.map((l: Row) => l.updatedAt),
      );
      expect(stamps.size).toBe(1);
      [updatedAt] = stamps;
    });

    it('updatedSince is inclusive: the instant of the burst returns all of it', async () => {
      const res = await sync(`updatedSince=${encodeURIComponent(updatedAt)}&limit=100`);
      expect(res.body.pagination.total).toBe(50);
    });

    it('pages of 20 continued with afterId: every row once, ordered by (updatedAt, id)', async () => {
      const seen: string[] = [];
      const pageSizes: number[] = [];
      let cursor: Row | undefined;
      for (;;) {
        const after = cursor ? `&afterId=${cursor.id}` : '';
        const since = encodeURIComponent(cursor?.updatedAt ?? updatedAt);
        const page: Row[] = (await sync(`updatedSince=${since}${after}&limit=20`)).body.data;
        if (page.length === 0) break;
        pageSizes.push(page.length);
        seen.push(...page.map((l) => l.id));
        cursor = page[page.length - 1];
      }
      expect(pageSizes).toEqual([20, 20, 10]);
      expect(new Set(seen).size).toBe(50);
      expect(seen).toEqual([...seen].sort());
    });

    it('refuses afterId without updatedSince, and an afterId that is not an id, on afterId', async () => {
      const id = '00000000-0000-4000-8000-000000000000';
      for (const query of [
        `afterId=${id}`,
        `updatedSince=${encodeURIComponent(updatedAt)}&afterId=x`,
      ]) {
        const res = await as(t, burst.liveKey).get(`/v1/listings?${query}`);
        expectError(res, 400, 'VALIDATION_ERROR');
        expect(fieldsOf(res)).toEqual(['afterId']);
      }
    });
  });

  it.each([
    ['page', 'page=0'],
    ['page', 'page=abc'],
    ['limit', 'limit=0'],
    ['limit', 'limit=101'],
    ['status', 'status=SOLDOUT'],
    ['sort', 'sort=cheapest'],
    ['updatedSince', 'updatedSince=yesterday'],
    ['colour', 'colour=red'],
  ])('refuses a bad %s query value with 400', async (field, query) => {
    const res = await as(t, seller.liveKey).get(`/v1/listings?${query}`);
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(res)).toEqual([field]);
  });

  describe('integer parameters: plain decimal digits only', () => {
    let receiver: WebhookReceiver;
    let endpointId: string;
    beforeAll(async () => {
      receiver = await WebhookReceiver.start();
      endpointId = (
        await as(t, seller.liveKey)
          .post('/v1/webhooks')
          .send({ url: receiver.url(), events: ['listing.sold'] })
          .expect(201)
      ).body.data.id;
    });
    afterAll(() => receiver.close());

    const routes: [string, string][] = [
      ['/v1/listings', 'limit'],
      ['/v1/listings', 'page'],
      ['/v1/events', 'limit'],
      ['/v1/webhooks/:id/deliveries', 'limit'],
      ['/v1/webhooks/:id/deliveries', 'page'],
    ];
    const get = (route: string, query: string) =>
      as(t, seller.liveKey).get(`${route.replace(':id', endpointId)}?${query}`);
    const BAD = ['1e1', '1.0', '+1', ' 1', '1 ', '0x10', '1_000', '', '1,0', '１０'];

    it.each(routes)('%s?%s= refuses every other form with 400 naming it', async (route, name) => {
      for (const value of BAD) {
        const res = await get(route, `${name}=${encodeURIComponent(value)}`);
        expect([value, res.status, fieldsOf(res)]).toEqual([value, 400, [name]]);
        expectError(res, 400, 'VALIDATION_ERROR');
      }
    });

    it.each(routes)('%s?%s=10 is still accepted', async (route, name) => {
      const res = await get(route, `${name}=10`).expect(200);
      if (name === 'limit') expect(res.body.pagination?.limit ?? 10).toBe(10);
      else expect(res.body.pagination.page).toBe(10);
    });

    it('a negative number is refused by its range, naming the parameter', async () => {
      const res = await get('/v1/listings', 'limit=-1');
      expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([
        { field: 'limit', message: 'limit must not be less than 1' },
      ]);
    });
  });
});
