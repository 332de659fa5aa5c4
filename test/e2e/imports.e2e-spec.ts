import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expectError, fieldsOf } from '../support/envelope';
import { withFailingListingInserts } from '../support/failing-inserts';
import { anAccount, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';
import { eventually } from '../support/webhook-receiver';
import { IMPORT_QUEUE } from '../../src/imports/import-queue';

type Body = Record<string, unknown>;
const expectFieldError = (res: Parameters<typeof expectError>[0], field: string) => {
  expectError(res, 400, 'VALIDATION_ERROR');
  expect(fieldsOf(res)).toContain(field);
};
const ndjson = (lines: (Body | string)[]) =>
  lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n';
const item = (externalId: string, fields: Body = {}) =>
  aListing()
    .with({ externalId, ...fields })
    .build();

describe('Inventory imports', () => {
  let t: TestApp;
  let seller: TestAccount;

  beforeAll(async () => {
    t = await createTestApp({ env: { IMPORT_SWEEP_EVERY: '1s' } });
    seller = await anAccount(t).build();
  });
  afterAll(() => t.close());

  const upload = (
    body: string | Buffer,
    query = '',
    key = seller.liveKey,
    type = 'application/x-ndjson',
  ) => as(t, key).post(`/v1/imports${query}`).set('Content-Type', type).send(body);

  async function finished(id: string, key = seller.liveKey) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const res = await as(t, key).get(`/v1/imports/${id}`).expect(200);
      if (!['queued', 'running'].includes(res.body.data.status)) return res.body.data;
      if (Date.now() > deadline) throw new Error(`import ${id} still ${res.body.data.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const results = async (id: string, query = '') =>
    (await as(t, seller.liveKey).get(`/v1/imports/${id}/results${query}`).expect(200)).body;
  const listingByExternalId = async (externalId: string) =>
    (
      await t.dataSource.query(
        `SELECT id, status, price, updated_at FROM listings WHERE account_id = $1 AND external_id = $2`,
        [seller.id, externalId],
      )
    )[0];
  const listingByExternalIdOf = async (account: TestAccount, externalId: string) =>
    (
      await t.dataSource.query(
        `SELECT id, status FROM listings WHERE account_id = $1 AND external_id = $2 AND livemode
         ORDER BY created_at DESC LIMIT 1`,
        [account.id, externalId],
      )
    )[0];
  const eventsAbout = async (ids: string[]) =>
    (await t.dataSource.query(
      `SELECT event FROM outbox_events WHERE data->>'id' = ANY($1) ORDER BY seq`,
      [ids],
    )) as { event: string }[];

  it('answers 202 with the import and its Location, then applies every line once', async () => {
    const res = await upload(
      ndjson([item('imp-a'), item('imp-b', { price: 5 }), item('imp-c', { price: -1 })]),
    ).expect(202);
    expect(res.headers.location).toBe(`/v1/imports/${res.body.data.id}`);
    expect(res.body.data).toMatchObject({
      status: 'queued',
      mode: 'upsert',
      dryRun: false,
      format: 'ndjson',
      source: 'upload',
      livemode: true,
      counts: { lines: null, processed: 0 },
    });
    const done = await finished(res.body.data.id);
    expect(done).toMatchObject({
      status: 'succeeded_with_errors',
      counts: {
        lines: 3,
        processed: 3,
        created: 2,
        updated: 0,
        unchanged: 0,
        failed: 1,
        removed: 0,
      },
      error: null,
    });
    const page = await results(res.body.data.id);
    expect(page.data.map((r: Body) => [r.line, r.externalId, r.outcome])).toEqual([
      [1, 'imp-a', 'created'],
      [2, 'imp-b', 'created'],
      [3, 'imp-c', 'failed'],
    ]);
    expect(page.data[2].error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'price' }],
    });
    const a = await listingByExternalId('imp-a');
    expect(page.data[0].listingId).toBe(a.id);
    expect((await eventsAbout([a.id])).map((e) => e.event)).toEqual(['listing.created']);
    const finishedEvents = await eventsAbout([res.body.data.id]);
    expect(finishedEvents.map((e) => e.event)).toEqual(['import.finished']);
    // The feed's listingId filter names listings: an import's id is none. The feed numbers
    // events shortly after they commit, so wait until it shows the import's own.
    const feed = async (query: string) =>
      (await as(t, seller.liveKey).get(`/v1/events?${query}`).expect(200)).body.data as Body[];
    await eventually(async () =>
      (await feed('types=import.finished&limit=100')).some(
        (e) => (e.data as Body).id === res.body.data.id,
      ),
    );
    expect(await feed(`listingId=${res.body.data.id}`)).toEqual([]);
    expect((await feed(`listingId=${a.id}`)).map((e) => e.event)).toEqual(['listing.created']);
  });

  it('writes nothing and emits nothing for lines that did not change', async () => {
    const file = ndjson([item('same-1'), item('same-2', { price: 7 })]);
    const first = await finished((await upload(file).expect(202)).body.data.id);
    expect(first.counts.created).toBe(2);
    const before = await listingByExternalId('same-1');
    const again = await finished((await upload(file).expect(202)).body.data.id);
    expect(again).toMatchObject({ status: 'succeeded', counts: { unchanged: 2, created: 0 } });
    const after = await listingByExternalId('same-1');
    expect(after.updated_at).toEqual(before.updated_at);
    expect((await eventsAbout([after.id])).map((e) => e.event)).toEqual(['listing.created']);
    const changed = await finished(
      (await upload(ndjson([item('same-1', { price: 99 })])).expect(202)).body.data.id,
    );
    expect(changed.counts.updated).toBe(1);
    expect((await eventsAbout([after.id])).map((e) => e.event)).toEqual([
      'listing.created',
      'listing.updated',
    ]);
  });

  it('reads CSV with the delimiter of its header, typed attributes and images', async () => {
    const csv = [
      '\uFEFFexternalId;title;description;price;condition;categorySlug;locationLan;locationKommun;attributes.make;attributes.model;attributes.modelYear;attributes.mileageKm;attributes.fuel;attributes.gearbox;images',
      'csv-1;"Volvo V70; fin";Servad 2025.;89000;GOOD;cars;stockholm;upplands-vasby;volvo;V70;2012;184000;diesel;automatic;https://img.example.com/1.jpg|https://img.example.com/2.jpg',
    ].join('\r\n');
    const res = await upload(csv, '', seller.liveKey, 'text/csv').expect(202);
    const done = await finished(res.body.data.id);
    expect(done).toMatchObject({ status: 'succeeded', format: 'csv', counts: { created: 1 } });
    const listing = await as(t, seller.liveKey)
      .get(`/v1/listings/${(await results(res.body.data.id)).data[0].listingId}`)
      .expect(200);
    expect(listing.body.data).toMatchObject({
      title: 'Volvo V70; fin',
      price: 89000,
      attributes: { modelYear: 2012, mileageKm: 184000 },
    });
    expect(listing.body.data.images.map((i: Body) => i.url)).toEqual([
      'https://img.example.com/1.jpg',
      'https://img.example.com/2.jpg',
    ]);
    expect((await results(res.body.data.id)).data[0].line).toBe(2);
  });

  it('fails a line that is not UTF-8 (a Latin-1 export) alone, naming the column or field', async () => {
    const header =
      'externalId;title;description;price;condition;categorySlug;locationLan;locationKommun';
    const row = (id: string, title: string) =>
      `${id};${title};En soffa.;1500;GOOD;sofas-armchairs;stockholm;huddinge`;
    const csv = Buffer.concat([
      Buffer.from(`${header}\n${row('enc-1', 'Soffa grå')}\n`),
      Buffer.from(`${row('enc-2', 'Soffa grå')}\n`, 'latin1'),
    ]);
    // Declared, the charset is refused at once; undeclared, the file is read as UTF-8.
    const declared = await upload(csv, '', seller.liveKey, 'text/csv; charset=ISO-8859-1');
    expectError(declared, 400, 'VALIDATION_ERROR');
    expect(declared.body.error.details).toEqual([
      {
        field: 'Content-Type',
        message:
          'A feed is read as UTF-8; convert the file from iso-8859-1 to UTF-8 and send it with charset=utf-8 or none.',
      },
    ]);
    const res = await upload(csv, '', seller.liveKey, 'text/csv; charset="utf-8"').expect(202);
    const done = await finished(res.body.data.id);
    expect(done).toMatchObject({
      status: 'succeeded_with_errors',
      counts: { created: 1, failed: 1 },
    });
    const [failed] = (await results(res.body.data.id, '?outcome=failed')).data;
    expect(failed).toMatchObject({ line: 3, externalId: 'enc-2', outcome: 'failed' });
    expect(failed.error.details).toEqual([{ field: 'title', message: 'title is not valid UTF-8' }]);
    expect(await listingByExternalId('enc-2')).toBeUndefined();

    // An NDJSON line fails the same way, naming the field as the PUT does.
    const line = (id: string) => `${JSON.stringify(aListing().withExternalId(id).build())}\n`;
    const ndjson = Buffer.concat([
      Buffer.from(line('enc-3')),
      Buffer.from(line('enc-4').replace('Volvo', 'Volvo grå'), 'latin1'),
    ]);
    const second = await upload(ndjson).expect(202);
    expect(await finished(second.body.data.id)).toMatchObject({
      counts: { created: 1, failed: 1 },
    });
    const [line2] = (await results(second.body.data.id, '?outcome=failed')).data;
    expect(line2).toMatchObject({ line: 2, externalId: 'enc-4' });
    // the whole line was written in Latin-1: each field with a letter outside ASCII is named
    expect(line2.error.details).toEqual([
      { field: 'title', message: 'title is not valid UTF-8' },
      { field: 'description', message: 'description is not valid UTF-8' },
    ]);
  });

  it('takes a gzip body', async () => {
    const res = await upload(gzipSync(ndjson([item('gz-1')])))
      .set('Content-Encoding', 'gzip')
      .expect(202);
    expect(await finished(res.body.data.id)).toMatchObject({
      status: 'succeeded',
      counts: { created: 1 },
    });
  });

  it('fails a whole file it cannot read, applying nothing', async () => {
    const csv = 'externalId,title,colour\nbad-col-1,Volvo,red\n';
    const res = await upload(csv, '', seller.liveKey, 'text/csv').expect(202);
    const done = await finished(res.body.data.id);
    expect(done.status).toBe('failed');
    expect(done.error.message).toContain('colour');
    expect(await listingByExternalId('bad-col-1')).toBeUndefined();
    const truncated = gzipSync(ndjson([item('gz-cut')])).subarray(0, 20);
    const cut = await upload(truncated).set('Content-Encoding', 'gzip').expect(202);
    expect((await finished(cut.body.data.id)).status).toBe('failed');
    expect(await listingByExternalId('gz-cut')).toBeUndefined();
  });

  it("lists imports newest first, paginated, filtered by status, of the key's mode only", async () => {
    const lister = await anAccount(t).build();
    const send = async (body: string) => {
      const res = await upload(body, '', lister.liveKey).expect(202);
      return finished(res.body.data.id, lister.liveKey);
    };
    const first = await send(ndjson([item('list-1')]));
    const second = await send('not json at all\n');
    const third = await send(ndjson([item('list-2')]));
    await upload(ndjson([item('list-test')]), '', lister.testKey).expect(202);
    const list = async (query: string) =>
      (await as(t, lister.liveKey).get(`/v1/imports${query}`).expect(200)).body;
    const all = await list('');
    expect(all.data.map((i: Body) => i.id)).toEqual([third.id, second.id, first.id]);
    expect(all.data[0]).toEqual(third);
    expect(all.pagination).toEqual({ page: 1, limit: 20, total: 3, pages: 1, hasMore: false });
    const page = await list('?limit=1&page=2');
    expect(page.data.map((i: Body) => i.id)).toEqual([second.id]);
    expect(page.pagination).toEqual({ page: 2, limit: 1, total: 3, pages: 3, hasMore: true });
    const withErrors = await list('?status=succeeded_with_errors');
    expect(withErrors.data.map((i: Body) => i.id)).toEqual([second.id]);
    expect((await list('?status=failed')).data).toEqual([]);
    expectFieldError(await as(t, lister.liveKey).get('/v1/imports?status=done'), 'status');
  });

  it('fails a later line that repeats an externalId, naming the first', async () => {
    const res = await upload(ndjson([item('dup-1'), item('dup-1', { price: 3 })])).expect(202);
    await finished(res.body.data.id);
    const page = await results(res.body.data.id);
    expect(page.data[1]).toMatchObject({ outcome: 'failed', externalId: 'dup-1' });
    expect(page.data[1].error.details).toEqual([
      { field: 'externalId', message: "externalId 'dup-1' is a duplicate of line 1" },
    ]);
  });

  it("names every field error of a line in its result, as the PUT's 400 does", async () => {
    const bad = item('one-round-1', {
      price: -5,
      locationKommun: 'atlantis',
      attributes: { ...(aListing().build().attributes as Body), modelYear: 'new' },
    });
    const noId = aListing().with({ locationKommun: 'atlantis' }).build();
    const res = await upload(ndjson([bad, noId])).expect(202);
    expect(await finished(res.body.data.id)).toMatchObject({ counts: { failed: 2 } });
    const page = await results(res.body.data.id);
    expect(page.data[0].error).toEqual({
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
    });
    const put = await as(t, seller.liveKey)
      .put('/v1/listings/by-external-id/one-round-1')
      .send(bad);
    expect(page.data[0].error).toEqual(put.body.error);
    expect(page.data[1].error.details.map((d: Body) => d.field)).toEqual([
      'externalId',
      'locationKommun',
    ]);
  });

  it("fails an invalid externalId and an object too wide to validate with the PUT's own error", async () => {
    const wide = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`k${i}`, i]));
    const lines = [item('bad one'), item('wide-1', { attributes: wide })];
    const res = await upload(ndjson(lines)).expect(202);
    expect(await finished(res.body.data.id)).toMatchObject({ counts: { failed: 2 } });
    const page = await results(res.body.data.id);
    const putOf = async (body: Body, path: string) =>
      (await as(t, seller.liveKey).put(`/v1/listings/by-external-id/${path}`).send(body)).body
        .error;
    expect(page.data[0].error.details).toEqual(
      (await putOf(aListing().with({ externalId: 'bad one' }).build(), 'bad%20one')).details,
    );
    expect(page.data[1].error.details.map((d: Body) => d.field)).toEqual(
      (await putOf(lines[1] as Body, 'wide-1')).details.map((d: Body) => d.field),
    );
    expect(page.data[1].externalId).toBe('wide-1');
  });

  it('reports a dry run in full and writes nothing', async () => {
    const res = await upload(ndjson([item('dry-1'), 'not json']), '?dryRun=true').expect(202);
    const done = await finished(res.body.data.id);
    expect(done).toMatchObject({ dryRun: true, counts: { created: 1, failed: 1 } });
    expect(await listingByExternalId('dry-1')).toBeUndefined();
    expect(
      (await results(res.body.data.id)).data.map((r: Body) => [r.outcome, r.listingId]),
    ).toEqual([
      ['created', null], // no listing was made: no id that would never exist
      ['failed', null],
    ]);
  });

  describe('mirror', () => {
    let owner: TestAccount;
    const put = (externalId: string, fields: Body = {}) =>
      as(t, owner.liveKey)
        .put(`/v1/listings/by-external-id/${externalId}`)
        .send(aListing().with(fields).build())
        .expect(201);
    const mirror = (lines: (Body | string)[], query = '') =>
      upload(ndjson(lines), `?mode=mirror${query}`, owner.liveKey).expect(202);
    const statusOf = async (externalId: string) =>
      (
        await t.dataSource.query(
          `SELECT status FROM listings WHERE account_id = $1 AND external_id = $2`,
          [owner.id, externalId],
        )
      )[0]?.status;

    beforeAll(async () => {
      owner = await anAccount(t).build();
      for (const id of ['m-keep', 'm-typo', 'm-gone', 'm-sold']) await put(id);
      await as(t, owner.liveKey).post('/v1/listings').send(aListing().build()).expect(201);
      const sold = await as(t, owner.liveKey).get('/v1/listings?limit=100').expect(200);
      const soldId = sold.body.data.find((l: Body) => l.externalId === 'm-sold').id;
      await as(t, owner.liveKey).post(`/v1/listings/${soldId}/sold`).expect(200);
    });

    it('removes what the feed no longer lists, never SOLD, unnamed or failed-line listings', async () => {
      const res = await mirror(
        [item('m-keep'), { ...item('m-typo'), price: 'oops' }],
        '&maxRemovals=5',
      );
      const done = await finished(res.body.data.id, owner.liveKey);
      expect(done).toMatchObject({ status: 'succeeded_with_errors', counts: { removed: 1 } });
      expect(await statusOf('m-gone')).toBe('REMOVED');
      expect(await statusOf('m-typo')).toBe('ACTIVE');
      expect(await statusOf('m-sold')).toBe('SOLD');
      const page = (
        await as(t, owner.liveKey).get(`/v1/imports/${res.body.data.id}/results`).expect(200)
      ).body;
      expect(page.data.map((r: Body) => [r.line, r.externalId, r.outcome])).toEqual([
        [1, 'm-keep', 'unchanged'],
        [2, 'm-typo', 'failed'],
        [null, 'm-gone', 'removed'],
      ]);
      const unnamed = await t.dataSource.query(
        `SELECT status FROM listings WHERE account_id = $1 AND external_id IS NULL`,
        [owner.id],
      );
      expect(unnamed).toEqual([{ status: 'ACTIVE' }]);
    });

    it('numbers removals after the last line (blank lines and a CSV header count); a JSON typo or a short CSV row protects its listing', async () => {
      const other = await anAccount(t).build();
      for (const id of ['r-keep', 'r-typo', 'r-short', 'r-gone-1', 'r-gone-2', '123'])
        await as(t, other.liveKey)
          .put(`/v1/listings/by-external-id/${id}`)
          .send(aListing().build())
          .expect(201);
      const statuses = async () =>
        Object.fromEntries(
          (
            (await t.dataSource.query(
              `SELECT external_id, status FROM listings WHERE account_id = $1`,
              [other.id],
            )) as { external_id: string; status: string }[]
          ).map((r) => [r.external_id, r.status]),
        );
      const removedRows = async (id: string) =>
        (await as(t, other.liveKey).get(`/v1/imports/${id}/results?outcome=removed`).expect(200))
          .body.data;

      // Line 2 is blank and line 3 a JSON typo: the two removals are numbered after line 5.
      const json = await upload(
        ndjson([
          item('r-keep'),
          '',
          '{"externalId": "r-typo", "price": 1,}',
          item('r-short'),
          { ...item('x'), externalId: 123 }, // a number: fails, and still protects listing "123"
          '{"externalId": "r\\u0000x"}', // names no listing: left out of what the mirror keeps
        ]),
        '?mode=mirror&maxRemovals=5',
        other.liveKey,
      ).expect(202);
      const done = await finished(json.body.data.id, other.liveKey);
      expect(done).toMatchObject({
        status: 'succeeded_with_errors',
        counts: { lines: 5, failed: 3, removed: 2 },
      });
      const typo = (
        await as(t, other.liveKey).get(`/v1/imports/${json.body.data.id}/results?outcome=failed`)
      ).body.data;
      expect(typo).toMatchObject([
        { line: 3, externalId: 'r-typo', outcome: 'failed' },
        { line: 5, externalId: '123', outcome: 'failed' },
        { line: 6, externalId: 'r\uFFFDx', outcome: 'failed' },
      ]);
      expect((await removedRows(json.body.data.id)).map((r: Body) => r.externalId).sort()).toEqual([
        'r-gone-1',
        'r-gone-2',
      ]);
      expect(await statuses()).toMatchObject({
        'r-typo': 'ACTIVE',
        '123': 'ACTIVE',
        'r-gone-1': 'REMOVED',
      });

      // CSV: the header is line 1; the r-short row lacks its last cell, and r-typo is gone.
      const csv = [
        'externalId,title,description,price,condition,categorySlug,locationLan,locationKommun',
        'r-keep,Volvo V70,Välskött bil.,89000,GOOD,cars,stockholm,upplands-vasby',
        'r-short,Volvo V70,Välskött bil.,89000,GOOD,cars,stockholm',
      ].join('\n');
      const rows = await upload(csv, '?mode=mirror&maxRemovals=5', other.liveKey, 'text/csv');
      const csvDone = await finished(rows.body.data.id, other.liveKey);
      expect(csvDone).toMatchObject({ status: 'succeeded_with_errors', counts: { removed: 2 } });
      expect(
        (await removedRows(rows.body.data.id)).map((r: Body) => [r.line, r.externalId]).sort(),
      ).toEqual([
        [null, '123'],
        [null, 'r-typo'],
      ]);
      expect(await statuses()).toMatchObject({
        'r-keep': 'ACTIVE',
        'r-short': 'ACTIVE',
        'r-typo': 'REMOVED',
      });
    });

    it('holds a mirror over its removal limit until confirmed, applying nothing', async () => {
      await put('m-two');
      await put('m-three');
      const res = await mirror([item('m-keep', { price: 1 })], '&maxRemovals=1');
      const held = await finished(res.body.data.id, owner.liveKey);
      // It says what it would remove: no separate dry run needed to count it.
      expect(held).toMatchObject({
        status: 'held',
        removalLimitExceeded: true,
        counts: { processed: 0, plannedRemovals: expect.any(Number) },
      });
      const planned = held.counts.plannedRemovals;
      expect(planned).toBeGreaterThan(1);
      // Its results list what it would remove, before anything is removed.
      const removedOf = async (id: string) =>
        (await as(t, owner.liveKey).get(`/v1/imports/${id}/results?outcome=removed`).expect(200))
          .body.data;
      const plannedRows = await removedOf(res.body.data.id);
      expect(plannedRows).toHaveLength(planned);
      expect(plannedRows.map((r: Body) => r.externalId)).toEqual(
        expect.arrayContaining(['m-two', 'm-three']),
      );
      expect(plannedRows.every((r: Body) => r.line === null)).toBe(true);
      expect(await statusOf('m-two')).toBe('ACTIVE');
      const heldEvents = await t.dataSource.query(
        `SELECT event, data FROM outbox_events WHERE data->>'id' = $1`,
        [res.body.data.id],
      );
      expect(heldEvents.map((e: Body) => e.event)).toEqual(['import.held']);
      expect((heldEvents[0].data as { counts: Body }).counts.plannedRemovals).toBe(planned);
      const confirmed = await as(t, owner.liveKey)
        .post(`/v1/imports/${res.body.data.id}/confirm`)
        .expect(200);
      expect(confirmed.body.data.status).toBe('queued');
      const done = await finished(res.body.data.id, owner.liveKey);
      expect(done).toMatchObject({
        status: 'succeeded',
        counts: { updated: 1, removed: planned, plannedRemovals: planned },
      });
      // The removals made replace the planned ones: each listed once.
      const removedRows = await removedOf(res.body.data.id);
      expect(removedRows.map((r: Body) => r.listingId).sort()).toEqual(
        plannedRows.map((r: Body) => r.listingId).sort(),
      );
      expect(await statusOf('m-two')).toBe('REMOVED');
      expect((await eventsAbout([res.body.data.id])).map((e) => e.event)).toEqual([
        'import.held',
        'import.finished',
      ]);
    });

    it('cancels a held import at once', async () => {
      await put('m-four');
      await put('m-five');
      const res = await mirror([item('m-keep')], '&maxRemovals=0');
      expect((await finished(res.body.data.id, owner.liveKey)).status).toBe('held');
      const cancelled = await as(t, owner.liveKey)
        .post(`/v1/imports/${res.body.data.id}/cancel`)
        .expect(200);
      expect(cancelled.body.data.status).toBe('cancelled');
      expect(await statusOf('m-four')).toBe('ACTIVE');
      // What it planned to remove never happened: no removal is among its results.
      const removed = await as(t, owner.liveKey)
        .get(`/v1/imports/${res.body.data.id}/results?outcome=removed`)
        .expect(200);
      expect(removed.body.data).toEqual([]);
      expect((await eventsAbout([res.body.data.id])).map((e) => e.event)).toEqual([
        'import.held',
        'import.finished',
      ]);
      const again = await as(t, owner.liveKey).post(`/v1/imports/${res.body.data.id}/cancel`);
      expectFieldError(again, 'status');
      const confirm = await as(t, owner.liveKey).post(`/v1/imports/${res.body.data.id}/confirm`);
      expectFieldError(confirm, 'status');
    });
  });

  describe('the nightly sync: renew, skip, restore', () => {
    let owner: TestAccount;
    beforeEach(async () => {
      owner = await anAccount(t).build();
    });
    const run = async (lines: (Body | string)[], query = '', key = owner.liveKey) =>
      finished((await upload(ndjson(lines), query, key).expect(202)).body.data.id, key);
    const outcomes = async (id: string, key = owner.liveKey) =>
      Object.fromEntries(
        (await as(t, key).get(`/v1/imports/${id}/results`).expect(200)).body.data.map((r: Body) => [
          r.externalId,
          r.outcome,
        ]),
      );
    const days = (iso: string) => (Date.parse(iso) - Date.now()) / 86_400_000;

    it('renews due listings, skips SOLD ones without failing, and reports both', async () => {
      await run([item('n-due'), item('n-fresh'), item('n-sold')]);
      const due = await listingByExternalIdOf(owner, 'n-due');
      await t.dataSource.query(
        `UPDATE listings SET expires_at = now() + interval '2 days' WHERE id = $1`,
        [due.id],
      );
      const sold = await listingByExternalIdOf(owner, 'n-sold');
      await as(t, owner.liveKey).post(`/v1/listings/${sold.id}/sold`).expect(200);
      const done = await run([item('n-due'), item('n-fresh'), item('n-sold')], '?renew=true');
      expect(done).toMatchObject({
        status: 'succeeded',
        renew: true,
        counts: { renewed: 1, unchanged: 1, skipped: 1, failed: 0 },
      });
      expect(await outcomes(done.id)).toEqual({
        'n-due': 'renewed',
        'n-fresh': 'unchanged',
        'n-sold': 'skipped',
      });
      const skipped = await as(t, owner.liveKey)
        .get(`/v1/imports/${done.id}/results?outcome=skipped`)
        .expect(200);
      expect(skipped.body.data).toEqual([
        expect.objectContaining({ externalId: 'n-sold', reason: 'SOLD', error: null }),
      ]);
      const renewed = (await as(t, owner.liveKey).get(`/v1/listings/${due.id}`).expect(200)).body
        .data;
      expect(days(renewed.expiresAt)).toBeGreaterThan(31);
      expect((await eventsAbout([due.id])).map((e) => e.event)).toEqual([
        'listing.created',
        'listing.updated',
      ]);
    });

    it('renews in test mode through the sandbox: published, expired, renewed by the feed', async () => {
      const created = await run([item('n-test')], '', owner.testKey);
      expect(created.counts.created).toBe(1);
      const [{ id }] = await t.dataSource.query(
        `SELECT id FROM listings WHERE account_id = $1 AND external_id = 'n-test' AND NOT livemode`,
        [owner.id],
      );
      const sandbox = (name: string) =>
        as(t, owner.testKey).post(`/v1/test-helpers/listings/${id}/${name}`).expect(200);
      await sandbox('publish');
      await sandbox('expire');
      const done = await run([item('n-test')], '?renew=true', owner.testKey);
      expect(await outcomes(done.id, owner.testKey)).toEqual({ 'n-test': 'renewed' });
      const after = (await as(t, owner.testKey).get(`/v1/listings/${id}`).expect(200)).body.data;
      expect(after.status).toBe('ACTIVE');
      expect(days(after.expiresAt)).toBeGreaterThan(29);
    });

    it('refuses renew other than true or false, naming it', async () => {
      for (const value of ['maybe', '1', ''])
        expectFieldError(await upload(ndjson([item('n-bad')]), `?renew=${value}`), 'renew');
    });

    it('restores only within IMPORT_RESTORE_WINDOW, in the same account and mode; a test-mode one as DRAFT', async () => {
      const other = await anAccount(t).build();
      const put = (key: string, externalId: string) =>
        as(t, key).put(`/v1/listings/by-external-id/${externalId}`).send(aListing().build());
      const live = (await put(owner.liveKey, 'n-scope').expect(201)).body.data.id;
      const old = (await put(owner.liveKey, 'n-old').expect(201)).body.data.id;
      const test = (await put(owner.testKey, 'n-scope').expect(201)).body.data.id;
      await run([item('n-keep')], '?mode=mirror');
      await run([item('n-keep')], '?mode=mirror', owner.testKey);
      await t.dataSource.query(
        `UPDATE listings SET removed_at = now() - interval '31 days' WHERE id = $1`,
        [old],
      );
      // Another account and the other mode never take a removed listing back.
      expect((await put(other.liveKey, 'n-scope').expect(201)).body.data.id).not.toBe(live);
      const testBack = (await put(owner.testKey, 'n-scope').expect(200)).body.data;
      expect(testBack).toMatchObject({ id: test, status: 'DRAFT', expiresAt: null });
      expect((await put(owner.liveKey, 'n-scope').expect(200)).body.data).toMatchObject({
        id: live,
        status: 'ACTIVE',
      });
      // Removed 31 days ago: past the window, a new listing.
      expect((await put(owner.liveKey, 'n-old').expect(201)).body.data.id).not.toBe(old);
    });

    it('restores a listing a mirror removed, by a PUT, with its id and images', async () => {
      const first = await as(t, owner.liveKey)
        .put('/v1/listings/by-external-id/n-back')
        .send(
          aListing()
            .with({ images: [{ url: 'https://img.example.com/n-back.jpg' }] })
            .build(),
        )
        .expect(201);
      await run([item('n-other')], '?mode=mirror');
      expect((await listingByExternalIdOf(owner, 'n-back'))?.status).toBe('REMOVED');
      const back = await as(t, owner.liveKey)
        .put('/v1/listings/by-external-id/n-back')
        .send(aListing().with({ price: 4242 }).build())
        .expect(200);
      expect(back.body.data).toMatchObject({
        id: first.body.data.id,
        status: 'ACTIVE',
        price: 4242,
        images: [expect.objectContaining({ url: 'https://img.example.com/n-back.jpg' })],
      });
      expect(days(back.body.data.expiresAt)).toBeGreaterThan(29);
      // Removed by its owner: a PUT creates a new listing instead.
      await as(t, owner.liveKey).delete(`/v1/listings/${first.body.data.id}`).expect(200);
      const fresh = await as(t, owner.liveKey)
        .put('/v1/listings/by-external-id/n-back')
        .send(aListing().build())
        .expect(201);
      expect(fresh.body.data.id).not.toBe(first.body.data.id);
    });
  });

  describe('from a sourceUrl', () => {
    let server: Server;
    let base: string;

    beforeAll(async () => {
      server = createServer((req, res) => {
        if (req.url === '/feed.ndjson') return void res.end(ndjson([item('url-1'), item('url-2')]));
        if (req.url === '/feed.ndjson.gz') {
          res.writeHead(200, { 'content-type': 'application/gzip' });
          return void res.end(gzipSync(ndjson([item('url-gz-1')])));
        }
        res.writeHead(404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => server.close());

    const fromUrl = (sourceUrl: string) =>
      as(t, seller.liveKey).post('/v1/imports').send({ sourceUrl, format: 'ndjson' }).expect(202);

    it('fetches the feed in the worker and applies it', async () => {
      const res = await fromUrl(`${base}/feed.ndjson`);
      expect(res.body.data).toMatchObject({ source: 'url', sourceUrl: `${base}/feed.ndjson` });
      expect(await finished(res.body.data.id)).toMatchObject({
        status: 'succeeded',
        counts: { created: 2 },
      });
    });

    it('reads a .gz file served as application/gzip, without Content-Encoding', async () => {
      const res = await fromUrl(`${base}/feed.ndjson.gz`);
      expect(await finished(res.body.data.id)).toMatchObject({
        status: 'succeeded',
        counts: { created: 1 },
      });
    });

    it('fails the import, naming the answer, when the feed URL answers 404', async () => {
      const done = await finished((await fromUrl(`${base}/gone.ndjson`)).body.data.id);
      expect(done.status).toBe('failed');
      expect(done.error.message).toContain('404');
    });
  });

  it('pages results with a cursor and downloads them as NDJSON', async () => {
    const lines = Array.from({ length: 5 }, (_, i) => item(`page-${i}`));
    const res = await upload(ndjson(lines)).expect(202);
    await finished(res.body.data.id);
    const first = await results(res.body.data.id, '?limit=2');
    expect(first.pagination).toEqual({ limit: 2, hasMore: true, nextCursor: '2' });
    const second = await results(res.body.data.id, `?limit=2&after=${first.pagination.nextCursor}`);
    expect(second.data.map((r: Body) => r.line)).toEqual([3, 4]);
    const download = await as(t, seller.liveKey)
      .get(`/v1/imports/${res.body.data.id}/results`)
      .set('Accept', 'application/x-ndjson')
      .expect(200);
    expect(download.headers['content-type']).toContain('application/x-ndjson');
    const rows = download.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(rows.map((r) => r.line)).toEqual([1, 2, 3, 4, 5]);
  });

  it('fails a line holding U+0000 or a lone surrogate alone (escaped or raw), never the import', async () => {
    const res = await upload(
      ndjson([
        item('nul-1'),
        '{"externalId": "nul\\u0000x", "title": "Volvo"}',
        'abc\u0000def',
        item('nul-2'),
        '{"externalId": "sur\\ud800x", "title": "Volvo"}',
        '{"externalId": "sur-2", "price": a😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀}',
      ]),
    ).expect(202);
    const done = await finished(res.body.data.id);
    expect(done).toMatchObject({
      status: 'succeeded_with_errors',
      counts: { created: 2, failed: 4 },
    });
    const failed = (await results(res.body.data.id, '?outcome=failed')).data;
    type Failed = { line: number; externalId: string | null; error: { details: Body[] } };
    const fields = (r: Failed) => r.error.details.map((d) => d.field);
    expect(failed.map((r: Failed) => [r.line, r.externalId, fields(r)])).toEqual([
      [2, 'nul\uFFFDx', expect.arrayContaining(['externalId'])],
      [3, null, ['body']],
      [5, 'sur\uFFFDx', expect.arrayContaining(['externalId'])],
      [6, 'sur-2', ['body']],
    ]);
    // A file whose CSV header quotes U+0000 fails as a whole, with its error stored.
    const csv = await upload('externalId,ti\u0000tle\nx,y\n', '', seller.liveKey, 'text/csv');
    const failedFile = await finished(csv.body.data.id);
    expect(failedFile).toMatchObject({ status: 'failed', error: { code: 'VALIDATION_ERROR' } });
    expect(failedFile.error.message).toContain('ti\uFFFDtle');
  });

  it('fails a line whose image is an array alone, as the PUT refuses it', async () => {
    const res = await upload(
      ndjson([item('nest-1'), item('nest-2', { images: [[]] }), item('nest-3')]),
    ).expect(202);
    const done = await finished(res.body.data.id);
    expect(done).toMatchObject({
      status: 'succeeded_with_errors',
      counts: { created: 2, failed: 1 },
    });
    const [failed] = (await results(res.body.data.id, '?outcome=failed')).data;
    expect(failed).toMatchObject({ line: 2, externalId: 'nest-2' });
    expect(failed.error.details).toEqual([
      { field: 'images', message: 'images[0] must be an object: {"url": "https://…"}' },
    ]);
  });

  it('fails alone a valid line the database refuses, applying the rest of its chunk', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => item(`refused-${i + 1}`));
    lines[4] = item('refused-5', { price: -1 }); // failed by validation, in the first half
    let done: Body = {};
    // A not-null violation for line 23 only: a fault of ours that validation did not catch.
    await withFailingListingInserts(
      t,
      "NEW.external_id = 'refused-23'",
      async () => {
        const res = await upload(ndjson(lines)).expect(202);
        done = await finished(res.body.data.id);
        const page = (await results(res.body.data.id)).data as Body[];
        expect(page.map((r) => r.line)).toEqual(lines.map((_, i) => i + 1));
        const failed = page.filter((r) => r.outcome === 'failed');
        expect(failed.map((r) => [r.line, (r.error as Body).code])).toEqual([
          [5, 'VALIDATION_ERROR'],
          [23, 'SERVER_ERROR'],
        ]);
      },
      '23502',
    );
    expect(done).toMatchObject({
      status: 'succeeded_with_errors',
      counts: { lines: 40, processed: 40, created: 38, failed: 2 },
    });
    const [{ attempts }] = await t.dataSource.query(`SELECT attempts FROM imports WHERE id = $1`, [
      done.id,
    ]);
    expect(attempts).toBe(1);
    expect(await listingByExternalId('refused-23')).toBeUndefined();
    expect(await listingByExternalId('refused-24')).toBeDefined();
  });

  it('reads an externalId in NFC, as the PUT does: a decomposed spelling is the same id', async () => {
    const res = await upload(
      ndjson([item('nfc-cafe\u0301'), item('nfc-caf\u00e9', { price: 2 })]),
    ).expect(202);
    expect(await finished(res.body.data.id)).toMatchObject({ counts: { created: 1, failed: 1 } });
    const [first, second] = (await results(res.body.data.id)).data;
    expect(first).toMatchObject({ externalId: 'nfc-caf\u00e9', outcome: 'created' });
    expect(second.error.details[0].message).toContain('is a duplicate of line 1');
    await as(t, seller.liveKey)
      .put(`/v1/listings/by-external-id/${encodeURIComponent('nfc-caf\u00e9')}`)
      .send(aListing().build())
      .expect(200); // the PUT finds the imported listing
  });

  it('downloads only what the filters select: outcome and after hold for NDJSON too', async () => {
    const res = await upload(
      ndjson([
        item('dl-0'),
        item('dl-1', { price: -1 }),
        item('dl-2'),
        item('dl-3', { price: -2 }),
      ]),
    ).expect(202);
    await finished(res.body.data.id);
    const download = async (query: string) =>
      (
        await as(t, seller.liveKey)
          .get(`/v1/imports/${res.body.data.id}/results${query}`)
          .set('Accept', 'application/x-ndjson')
          .expect(200)
      ).text
        .trim()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Body);
    expect((await download('?outcome=failed')).map((r) => r.line)).toEqual([2, 4]);
    expect((await download('?after=2')).map((r) => r.line)).toEqual([3, 4]);
    expect((await download('?outcome=created&after=1')).map((r) => r.line)).toEqual([3]);
    expect(await download('?outcome=removed')).toEqual([]);
    // Accept is negotiated with its q-values: JSON preferred gets the page in its envelope.
    const preferJson = await as(t, seller.liveKey)
      .get(`/v1/imports/${res.body.data.id}/results`)
      .set('Accept', 'application/json, application/x-ndjson;q=0.5')
      .expect(200);
    expect(preferJson.body.data).toHaveLength(4);
  });

  it("keeps a test key's import in test mode: test listings only, the live one untouched", async () => {
    const live = await upload(ndjson([item('mode-1', { price: 1 })])).expect(202);
    await finished(live.body.data.id);
    const test = await upload(ndjson([item('mode-1', { price: 2 })]), '', seller.testKey).expect(
      202,
    );
    expect(test.body.data.livemode).toBe(false);
    expect(await finished(test.body.data.id, seller.testKey)).toMatchObject({
      status: 'succeeded',
      counts: { created: 1 },
    });
    const rows = await t.dataSource.query(
      `SELECT livemode, status, price FROM listings WHERE account_id = $1 AND external_id = 'mode-1'
       ORDER BY livemode`,
      [seller.id],
    );
    expect(rows).toEqual([
      { livemode: false, status: 'DRAFT', price: 2 },
      { livemode: true, status: 'ACTIVE', price: 1 },
    ]);
  });

  it("answers 404 for another account's or mode's import", async () => {
    const res = await upload(ndjson([item('mine-1')])).expect(202);
    const other = await anAccount(t).build();
    expectError(
      await as(t, other.liveKey).get(`/v1/imports/${res.body.data.id}`),
      404,
      'NOT_FOUND',
    );
    expectError(
      await as(t, seller.testKey).get(`/v1/imports/${res.body.data.id}`),
      404,
      'NOT_FOUND',
    );
    expectError(
      await as(t, other.liveKey).get(`/v1/imports/${res.body.data.id}/results`),
      404,
      'NOT_FOUND',
    );
  });

  it('replays an Idempotency-Key instead of importing twice', async () => {
    const file = ndjson([item('idem-1')]);
    const first = await upload(file).set('Idempotency-Key', 'import-idem-1').expect(202);
    const again = await upload(file).set('Idempotency-Key', 'import-idem-1').expect(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    // The same bytes read another way (as CSV) are another request: the key refuses them.
    const asCsv = await upload(file, '', seller.liveKey, 'text/csv').set(
      'Idempotency-Key',
      'import-idem-1',
    );
    expectFieldError(asCsv, 'Idempotency-Key');
  });

  it('replays by the feed’s content: gzipped at another time, or not at all, is the same request', async () => {
    const file = ndjson([item('idem-gz-1')]);
    // gzip writes the time into its header: the same file compressed twice differs in its bytes
    const gzipped = (mtime: number) => {
      const bytes = gzipSync(file);
      bytes.writeUInt32LE(mtime, 4);
      return bytes;
    };
    const gzipUpload = (bytes: Buffer) =>
      upload(bytes).set('Content-Encoding', 'gzip').set('Idempotency-Key', 'import-idem-gz');
    const first = await gzipUpload(gzipped(1_700_000_000)).expect(202);
    for (const again of [
      await gzipUpload(gzipped(1_800_000_000)),
      await upload(file).set('Idempotency-Key', 'import-idem-gz'),
    ]) {
      expect([again.status, again.headers['idempotent-replayed']]).toEqual([202, 'true']);
      expect(again.body.data.id).toBe(first.body.data.id);
    }
    // other content under the key is refused, compressed or not
    const other = ndjson([item('idem-gz-2')]);
    expectFieldError(await gzipUpload(gzipSync(other)), 'Idempotency-Key');
    // a body that does not inflate is known by its bytes: the same bytes replay, its import fails
    const broken = gzipped(1).subarray(0, 20);
    const bad = await upload(broken)
      .set('Content-Encoding', 'gzip')
      .set('Idempotency-Key', 'idem-bad-gz');
    const badAgain = await upload(broken)
      .set('Content-Encoding', 'gzip')
      .set('Idempotency-Key', 'idem-bad-gz');
    expect([bad.status, badAgain.status, badAgain.body.data.id]).toEqual([
      202,
      202,
      bad.body.data.id,
    ]);
  });

  it.each([
    [
      'a Content-Type it cannot read',
      () => upload('x', '', seller.liveKey, 'text/plain'),
      'Content-Type',
    ],
    ['an unknown mode', () => upload('{}', '?mode=replace'), 'mode'],
    ['maxRemovals on an upsert', () => upload('{}', '?maxRemovals=3'), 'maxRemovals'],
    ['a negative maxRemovals', () => upload('{}', '?mode=mirror&maxRemovals=-1'), 'maxRemovals'],
    ['dryRun that is not a boolean', () => upload('{}', '?dryRun=yes'), 'dryRun'],
    [
      'a sourceUrl that is not http(s)',
      () =>
        as(t, seller.liveKey)
          .post('/v1/imports')
          .send({ sourceUrl: 'ftp://x.example/feed', format: 'csv' }),
      'sourceUrl',
    ],
    [
      'a sourceUrl holding U+0000',
      () =>
        as(t, seller.liveKey)
          .post('/v1/imports')
          .send({ sourceUrl: 'https://x.example/feed\u0000.ndjson', format: 'ndjson' }),
      'sourceUrl',
    ],
    [
      'a missing format',
      () => as(t, seller.liveKey).post('/v1/imports').send({ sourceUrl: 'https://x.example/feed' }),
      'format',
    ],
    [
      'an unknown Content-Encoding',
      () => upload('{}').set('Content-Encoding', 'br'),
      'Content-Encoding',
    ],
  ])('refuses %s with 400 naming the field', async (_, send, field) => {
    expectFieldError(await send(), field);
  });
});

describe('Inventory imports without a worker', () => {
  let t: TestApp;
  let seller: TestAccount;
  let storageDir: string;
  const storedFiles = () => readdirSync(join(storageDir, '.private', 'imports')).length;

  beforeAll(async () => {
    storageDir = mkdtempSync(join(tmpdir(), 'lsvc-imports-'));
    t = await createTestApp({ role: 'api', env: { STORAGE_DIR: storageDir } });
    seller = await anAccount(t).build();
  });
  afterAll(async () => {
    await t?.close();
    rmSync(storageDir, { recursive: true, force: true });
  });

  it('refuses a 6th unfinished import of a mode with 429, keeping neither its file nor its key, and counts modes apart', async () => {
    const send = (key: string) =>
      as(t, key).post('/v1/imports').set('Content-Type', 'application/x-ndjson').send('{}\n');
    for (let i = 0; i < 5; i++) await send(seller.liveKey).expect(202);
    expect(storedFiles()).toBe(5);
    expect(expectError(await send(seller.liveKey), 429, 'RATE_LIMITED').message).toBe(
      '5 imports of this mode are unfinished (queued, running or held): wait for one to end, or confirm or cancel a held one.',
    );
    const keyed = await send(seller.liveKey).set('Idempotency-Key', 'sixth-import');
    expectError(keyed, 429, 'RATE_LIMITED');
    expect(storedFiles()).toBe(5); // the refused uploads' files are gone
    await send(seller.testKey).expect(202);
    // The 429 was not kept with the key: once an import ends, the same key goes through.
    const [oldest] = (
      await as(t, seller.liveKey).get('/v1/imports?limit=100').expect(200)
    ).body.data.slice(-1);
    const cancelled = await as(t, seller.liveKey).post(`/v1/imports/${oldest.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', counts: { processed: 0 } });
    const events = await t.dataSource.query(
      `SELECT event, data->>'status' AS status FROM outbox_events WHERE data->>'id' = $1`,
      [oldest.id],
    );
    expect(events).toEqual([{ event: 'import.finished', status: 'cancelled' }]);
    await send(seller.liveKey).set('Idempotency-Key', 'sixth-import').expect(202);
  });
});

describe('Inventory imports: the database is the truth', () => {
  it('runs an import whose queue job vanished, once a worker sweeps', async () => {
    const api = await createTestApp({ role: 'api' });
    const seller = await anAccount(api).build();
    const res = await as(api, seller.liveKey)
      .post('/v1/imports')
      .set('Content-Type', 'application/x-ndjson')
      .send(ndjson([item('lost-job-1')]))
      .expect(202);
    // Redis restarted empty: the job is gone, the record stays queued.
    await api.app.get<Queue>(getQueueToken(IMPORT_QUEUE)).obliterate({ force: true });
    const worker = await createTestApp({
      role: 'worker',
      databaseName: api.databaseName,
      redisPrefix: api.redisPrefix,
      env: { IMPORT_SWEEP_EVERY: '200ms' },
    });
    try {
      const deadline = Date.now() + 20_000;
      let status = 'queued';
      while (status !== 'succeeded' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await as(api, seller.liveKey).get(`/v1/imports/${res.body.data.id}`)).body.data
          .status;
      }
      expect(status).toBe('succeeded');
    } finally {
      await worker.close();
      await api.close();
    }
  });
});
