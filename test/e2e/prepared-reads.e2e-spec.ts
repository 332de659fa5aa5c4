import { anAccount, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * GET by id and list pages run as prepared statements on every connection of the read pool
 * (DB_POOL_SIZE is 5 here).
 */
describe('Prepared reads', () => {
  let t: TestApp;
  let seller: TestAccount;
  let id: string;

  beforeAll(async () => {
    t = await createTestApp();
    seller = await anAccount(t).build();
    id = (await as(t, seller.liveKey).post('/v1/listings').send(aListing().build()).expect(201))
      .body.data.id;
  });
  afterAll(() => t.close());

  /** Enough concurrent reads, by id and by page, to use and prepare on every connection. */
  const readEverywhere = async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        as(t, seller.liveKey).get(i % 2 ? `/v1/listings/${id}` : '/v1/listings'),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    // The listing as each read returned it: the record, or the only one on the page.
    return answers.map((r) => (Array.isArray(r.body.data) ? r.body.data[0] : r.body.data));
  };

  it('keep answering when a migration adds a column while the service runs', async () => {
    await readEverywhere();
    await t.dataSource.query(`ALTER TABLE listings ADD COLUMN rolled_out_later integer`);
    const after = await readEverywhere();
    expect(after.map((listing) => listing.id)).toEqual(Array(20).fill(id));
    for (const listing of after) expect(listing).not.toHaveProperty('rolled_out_later');
  });

  it('see a change committed after the statement was prepared', async () => {
    await readEverywhere();
    await as(t, seller.liveKey).patch(`/v1/listings/${id}`).send({ price: 4242 }).expect(200);
    const after = await readEverywhere();
    expect(after.map((listing) => listing.price)).toEqual(Array(20).fill(4242));
  });

  it('still answer 404 for another account’s listing, and leave it off that account’s pages', async () => {
    const other = await anAccount(t).build();
    await readEverywhere();
    const res = await as(t, other.liveKey).get(`/v1/listings/${id}`);
    expect(res.status).toBe(404);
    const page = await as(t, other.liveKey).get('/v1/listings').expect(200);
    expect(page.body.data).toEqual([]);
    expect(page.body.pagination.total).toBe(0);
  });
});
