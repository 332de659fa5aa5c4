import { anAccount, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';

/** GET by id runs as a prepared statement on every pooled connection (DB_POOL_SIZE is 5 here). */
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

  /** Enough concurrent reads to use, and prepare on, every connection of the pool. */
  const readEverywhere = () =>
    Promise.all(
      Array.from({ length: 20 }, () => as(t, seller.liveKey).get(`/v1/listings/${id}`)),
    );

  it('keep answering when a migration adds a column while the service runs', async () => {
    expect((await readEverywhere()).map((r) => r.status)).toEqual(Array(20).fill(200));
    await t.dataSource.query(`ALTER TABLE listings ADD COLUMN rolled_out_later integer`);
    const after = await readEverywhere();
    expect(after.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(after[0].body.data).not.toHaveProperty('rolled_out_later');
  });

  it('see a change committed after the statement was prepared', async () => {
    await readEverywhere();
    await as(t, seller.liveKey).patch(`/v1/listings/${id}`).send({ price: 4242 }).expect(200);
    const after = await readEverywhere();
    expect(after.map((r) => r.body.data.price)).toEqual(Array(20).fill(4242));
  });

  it('still answer 404 for another account’s listing', async () => {
    const other = await anAccount(t).build();
    await readEverywhere();
    const res = await as(t, other.liveKey).get(`/v1/listings/${id}`);
    expect(res.status).toBe(404);
  });
});
