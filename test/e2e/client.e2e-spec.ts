import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createListingsClient,
  followEvents,
  importFeed,
  importResults,
  listAll,
  ListingsApiError,
  type ListingsClient,
  type paths,
  unwrap,
  verifyWebhook,
  WebhookVerificationError,
} from '../../clients/typescript/src';
import { anAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

type NewListing = NonNullable<
  paths['/v1/listings']['post']['requestBody']
>['content']['application/json'];

/** The shared valid body, typed as the client's request body (the builder's is a plain record). */
const car = (title: string, price = 89_000) =>
  aListing().with({ title, price }).build() as NewListing;

/** Everything here goes through the client, against the app on a real port; only the account is made through the admin API. */
describe('TypeScript client against the service', () => {
  let t: TestApp;
  let api: ListingsClient;
  let receiver: WebhookReceiver;
  const created: string[] = [];

  beforeAll(async () => {
    [t, receiver] = await Promise.all([
      createTestApp({ env: { IMPORT_SWEEP_EVERY: '1s' } }),
      WebhookReceiver.start(),
    ]);
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const { liveKey } = await anAccount(t).build();
    api = createListingsClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: liveKey });
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it('creates, reads and patches a listing, typed through the envelope', async () => {
    const { data: listing, meta } = unwrap(
      await api.POST('/v1/listings', { body: car('Volvo V70 -12') }),
    );
    created.push(listing.id);
    expect(listing).toMatchObject({ title: 'Volvo V70 -12', status: 'ACTIVE', livemode: true });
    expect(meta.requestId).toEqual(expect.any(String));

    const read = unwrap(
      await api.GET('/v1/listings/{id}', { params: { path: { id: listing.id } } }),
    );
    expect(read.data.id).toBe(listing.id);

    const patched = unwrap(
      await api.PATCH('/v1/listings/{id}', {
        params: { path: { id: listing.id } },
        body: { price: 79_000 },
      }),
    );
    expect(patched.data).toMatchObject({ id: listing.id, price: 79_000, title: 'Volvo V70 -12' });
  });

  it('lists every listing across several pages with listAll, each once', async () => {
    for (let i = 2; i <= 5; i++)
      created.push(
        unwrap(await api.POST('/v1/listings', { body: car(`Volvo V70 nr ${i}`) })).data.id,
      );
    const seen: string[] = [];
    for await (const listing of listAll(api, { limit: 2, sort: 'oldest' })) seen.push(listing.id);
    expect(seen).toEqual(created);
  });

  it('reads a 400 through ListingsApiError, naming the field', async () => {
    const result = await api.POST('/v1/listings', { body: { ...car('Negative'), price: -1 } });
    expect(result.response.status).toBe(400);
    expect(result.error?.error.code).toBe('VALIDATION_ERROR');
    const error = (() => {
      try {
        unwrap(result);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ListingsApiError);
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect((error as ListingsApiError).details.map((d) => d.field)).toContain('price');
  });

  it('imports a small NDJSON feed with importFeed and reads its results', async () => {
    const lines = [
      { ...car('Import ett'), externalId: 'imp-1' },
      { ...car('Import två'), externalId: 'imp-2' },
      { ...car('Import fel'), externalId: 'imp-3', price: -5 },
    ];
    const body = lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
    const finished = await importFeed(api, {
      body,
      format: 'ndjson',
      compress: true,
      pollIntervalMs: 100,
    });
    expect(finished).toMatchObject({
      status: 'succeeded_with_errors',
      format: 'ndjson',
      mode: 'upsert',
    });
    expect(finished.counts).toMatchObject({ lines: 3, created: 2, failed: 1 });

    const results = [];
    for await (const result of importResults(api, finished.id, { limit: 1 })) results.push(result);
    expect(results.map((r) => [r.line, r.externalId, r.outcome])).toEqual([
      [1, 'imp-1', 'created'],
      [2, 'imp-2', 'created'],
      [3, 'imp-3', 'failed'],
    ]);
    expect(results[2].error?.code).toBe('VALIDATION_ERROR');
    expect(results[2].error?.details?.map((d) => d.field)).toContain('price');
    created.push(...results.filter((r) => r.listingId).map((r) => r.listingId!));
  });

  it('streams a CSV file from disk with importFeed (a dry run: nothing written)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-e2e-'));
    const file = join(dir, 'inventory.csv');
    // CSV columns: the listing's fields, `attributes.<key>` for each attribute
    const { attributes, ...fields } = car('Import från fil');
    const row: Record<string, unknown> = { ...fields, externalId: 'imp-csv' };
    for (const [key, value] of Object.entries(attributes ?? {})) row[`attributes.${key}`] = value;
    writeFileSync(file, `${Object.keys(row).join(';')}\n${Object.values(row).join(';')}\n`);
    try {
      const finished = await importFeed(api, {
        file,
        format: 'csv',
        dryRun: true,
        pollIntervalMs: 100,
      });
      expect(finished).toMatchObject({ status: 'succeeded', format: 'csv', dryRun: true });
      expect(finished.counts).toMatchObject({ lines: 1, created: 1 });
      const results = [];
      for await (const result of importResults(api, finished.id)) results.push(result);
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ line: 2, externalId: 'imp-csv', outcome: 'created' });
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('follows the events feed: each event once, and new ones after empty polls', async () => {
    const signal = AbortSignal.timeout(30_000);
    const seen: string[] = [];
    const createdEvents = new Set<string>();
    let late: string | undefined;
    const controller = new AbortController();
    for await (const event of followEvents(api, {
      limit: 3,
      pollIntervalMs: 50,
      signal: AbortSignal.any([signal, controller.signal]),
    })) {
      seen.push(event.id);
      if (event.event === 'listing.created') createdEvents.add(event.data.id);
      if (late === undefined && created.every((id) => createdEvents.has(id))) {
        // caught up: the feed now answers empty pages until this one is positioned
        late = unwrap(await api.POST('/v1/listings', { body: car('Late arrival') })).data.id;
      }
      if (late !== undefined && createdEvents.has(late)) controller.abort();
    }
    expect(signal.aborted).toBe(false);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...createdEvents]).toEqual([...created, late]);
  });

  it('verifies a webhook delivery that the service really sent, in either signature scheme', async () => {
    const endpoint = unwrap(
      await api.POST('/v1/webhooks', {
        body: { url: receiver.url('/client'), events: ['listing.sold'] },
      }),
    ).data;
    const sold = unwrap(
      await api.POST('/v1/listings/{id}/sold', { params: { path: { id: created[0] } } }),
    ).data;

    const [delivery] = await receiver.waitFor('/client', 1);
    const payload = verifyWebhook(delivery.rawBody, delivery.headers, endpoint.secret);
    expect(payload).toMatchObject({ event: 'listing.sold', data: { id: sold.id } });

    const serviceOnly = Object.fromEntries(
      Object.entries(delivery.headers).filter(([name]) => !name.startsWith('webhook-')),
    );
    expect(verifyWebhook(delivery.rawBody, serviceOnly, endpoint.secret)).toEqual(payload);
    expect(() =>
      verifyWebhook(
        delivery.rawBody.replace(sold.id, created[1]),
        delivery.headers,
        endpoint.secret,
      ),
    ).toThrow(WebhookVerificationError);
  });
});
