import { anAccount, as, TestAccount } from '../support/factories';
import { expectError, fieldsOf } from '../support/envelope';
import { aListing } from '../support/listing-builder';
import { withFailingListingInserts } from '../support/failing-inserts';
import { createTestApp, TestApp } from '../support/test-app';

describe('POST /v1/listings with Idempotency-Key', () => {
  let t: TestApp;
  let seller: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    seller = await anAccount(t).build();
  });
  afterAll(() => t.close());

  const post = (key: string, body: object, apiKey = seller.liveKey) =>
    as(t, apiKey).post('/v1/listings').set('Idempotency-Key', key).send(body);
  const countWith = async (title: string) =>
    (
      await t.dataSource.query('SELECT count(*)::int AS n FROM listings WHERE title = $1', [title])
    )[0].n;

  it('replays the first answer with a fresh meta and Idempotent-Replayed: true', async () => {
    const body = aListing().with({ title: 'Replay me once' }).build();
    const first = await post('retry-1', body).expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await post('retry-1', body).expect(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.data).toEqual(first.body.data);
    // The same answer as written, keys in the same order: a client may compare the bytes.
    expect(JSON.stringify(second.body.data)).toBe(JSON.stringify(first.body.data));
    expect(second.body.meta.requestId).not.toBe(first.body.meta.requestId);
    expect(await countWith('Replay me once')).toBe(1);
    const outbox = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM outbox_events WHERE data->>'id' = $1`,
      [first.body.data.id],
    );
    expect(outbox[0].n).toBe(1);
  });

  it('treats the same body with keys in another order as the same request', async () => {
    const body = aListing().with({ title: 'Key order does not matter' }).build();
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    await post('retry-2', body).expect(201);
    const again = await post('retry-2', reordered).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('refuses the same key with a different body with 400 on Idempotency-Key', async () => {
    await post('retry-3', aListing().with({ title: 'The original body' }).build()).expect(201);
    const res = await post('retry-3', aListing().with({ title: 'A different body' }).build());
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(fieldsOf(res)).toEqual(['Idempotency-Key']);
    expect(await countWith('A different body')).toBe(0);
  });

  it('keeps keys per account and per mode', async () => {
    const body = aListing().with({ title: 'Same key, other scope' }).build();
    await post('shared-key', body).expect(201);
    const testMode = await post('shared-key', body, seller.testKey).expect(201);
    expect(testMode.headers['idempotent-replayed']).toBeUndefined();
    const other = await anAccount(t).build();
    const otherAccount = await post('shared-key', body, other.liveKey).expect(201);
    expect(otherAccount.headers['idempotent-replayed']).toBeUndefined();
    expect(await countWith('Same key, other scope')).toBe(3);
  });

  it('stores and replays a 4xx answer', async () => {
    await as(t, seller.liveKey)
      .post('/v1/listings')
      .send(aListing().withExternalId('idem-taken').build())
      .expect(201);
    const body = aListing()
      .withExternalId('idem-taken')
      .with({ title: 'Conflicting externalId' })
      .build();
    const first = await post('retry-4', body);
    expectError(first, 400, 'VALIDATION_ERROR');
    await as(t, seller.liveKey)
      .delete(
        `/v1/listings/${(await as(t, seller.liveKey).get('/v1/listings?externalId=idem-taken')).body.data[0].id}`,
      )
      .expect(200);
    const replay = await post('retry-4', body);
    expectError(replay, 400, 'VALIDATION_ERROR');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.error).toEqual(first.body.error);
  });

  it('creates exactly one listing when 10 identical requests race, and all get the same answer', async () => {
    const body = aListing().with({ title: 'Racing with one key' }).build();
    const answers = await Promise.all(Array.from({ length: 10 }, () => post('race-1', body)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
    expect(await countWith('Racing with one key')).toBe(1);
  });

  it('forgets a key after 24 hours', async () => {
    const body = aListing().with({ title: 'Twenty-four hours later' }).build();
    await post('old-key', body).expect(201);
    await t.dataSource.query(
      `UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'old-key'`,
    );
    const again = await post('old-key', body).expect(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await countWith('Twenty-four hours later')).toBe(2);
  });

  it('refuses a malformed key', async () => {
    expect(fieldsOf(await post('x'.repeat(256), aListing().build()))).toEqual(['Idempotency-Key']);
    expect(fieldsOf(await post('has space', aListing().build()))).toEqual(['Idempotency-Key']);
  });

  describe('which answers use up the key', () => {
    const fixed = () => aListing().with({ title: `Corrected retry ${Math.random()}` });

    it('a 400 from the body checks does not: the corrected retry with the same key runs', async () => {
      const refused = await post('fix-me-1', fixed().without('price').build());
      expectError(refused, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(refused)).toEqual(['price']);
      const retry = await post('fix-me-1', fixed().build()).expect(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
    });

    it('a 400 on category attributes does not either', async () => {
      const body = fixed().build();
      const wrong = { ...body, attributes: { ...(body.attributes as object), fuel: 'plutonium' } };
      const refused = await post('fix-me-2', wrong);
      expectError(refused, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(refused)).toEqual(['attributes.fuel']);
      const retry = await post('fix-me-2', body).expect(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(await countWith(body.title as string)).toBe(1);
      // From then on the key is used: the first run's answer is replayed.
      const replay = await post('fix-me-2', body).expect(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
    });

    it('a 400 on a kommun outside its län does not either', async () => {
      const refused = await post('fix-me-3', fixed().with({ locationKommun: 'kiruna' }).build());
      expect(fieldsOf(refused)).toEqual(['locationKommun']);
      await post('fix-me-3', fixed().build()).expect(201);
    });

    it('a 5xx is not kept: the same request with the same key runs again', async () => {
      const body = fixed().build();
      await withFailingListingInserts(t, "NEW.title LIKE 'Corrected retry%'", async () => {
        expectError(await post('fix-me-4', body), 500, 'SERVER_ERROR');
      });
      const retry = await post('fix-me-4', body).expect(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(await countWith(body.title as string)).toBe(1);
    });
  });
});
