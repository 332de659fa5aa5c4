import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectError, fieldsOf } from '../support/envelope';
import { anAccount, as, TestAccount } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * The third security review's import items: where a feed URL's redirects may lead and how many,
 * no credentials in a sourceUrl, and a failed line's externalId kept short in the results.
 */
describe('Inventory imports: feed safety', () => {
  let t: TestApp;
  let seller: TestAccount;
  let server: Server;
  let base: string;
  const feed = JSON.stringify(aListing().with({ externalId: 'safe-1' }).build()) + '\n';

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      // /hops/3 redirects three times, then to the feed
      const hops = /^\/hops\/(\d+)$/.exec(url.pathname);
      if (hops) {
        const left = Number(hops[1]) - 1;
        return void res
          .writeHead(302, { Location: left > 0 ? `/hops/${left}` : '/feed.ndjson' })
          .end();
      }
      if (url.pathname === '/to-file')
        return void res.writeHead(302, { Location: 'file:///etc/passwd' }).end();
      if (url.pathname === '/feed.ndjson') return void res.end(feed);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await createTestApp({ env: { IMPORT_SWEEP_EVERY: '1s' } });
    seller = await anAccount(t).build();
  });
  afterAll(async () => {
    await t.close();
    server.closeAllConnections();
    server.close();
  });

  const fromUrl = async (sourceUrl: string) =>
    (
      await as(t, seller.liveKey)
        .post('/v1/imports')
        .send({ sourceUrl, format: 'ndjson' })
        .expect(202)
    ).body.data as { id: string };

  async function finished(id: string) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const res = await as(t, seller.liveKey).get(`/v1/imports/${id}`).expect(200);
      if (!['queued', 'running'].includes(res.body.data.status)) return res.body.data;
      if (Date.now() > deadline) throw new Error(`import ${id} still ${res.body.data.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('follows 3 redirects to the feed', async () => {
    const done = await finished((await fromUrl(`${base}/hops/3`)).id);
    expect(done).toMatchObject({ status: 'succeeded', counts: { created: 1 }, error: null });
  });

  it('fails a 4th redirect with reason too_many_redirects', async () => {
    const done = await finished((await fromUrl(`${base}/hops/4`)).id);
    expect(done).toMatchObject({
      status: 'failed',
      error: {
        code: 'VALIDATION_ERROR',
        reason: 'too_many_redirects',
        message: 'The feed at sourceUrl: More than 3 redirects.',
      },
    });
  });

  it('fails a redirect to file: at once with reason unsupported_scheme', async () => {
    const done = await finished((await fromUrl(`${base}/to-file`)).id);
    expect(done).toMatchObject({
      status: 'failed',
      error: {
        code: 'VALIDATION_ERROR',
        reason: 'unsupported_scheme',
        message: 'The feed at sourceUrl: Only http and https URLs can be fetched, not file:.',
      },
    });
  });

  it('gives reason null to a failure that is not the fetch’s', async () => {
    const res = await as(t, seller.liveKey)
      .post('/v1/imports')
      .set('Content-Type', 'application/x-ndjson')
      .set('Content-Encoding', 'gzip')
      .send(Buffer.from('not gzip at all'))
      .expect(202);
    const done = await finished(res.body.data.id);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'VALIDATION_ERROR' } });
    expect(done.error.reason).toBeNull();
  });

  it('refuses a sourceUrl with user info with 400 on sourceUrl, storing and echoing nothing', async () => {
    const count = async () =>
      Number(
        (
          await t.dataSource.query(`SELECT count(*) AS n FROM imports WHERE account_id = $1`, [
            seller.id,
          ])
        )[0].n,
      );
    const before = await count();
    for (const sourceUrl of [
      `${base.replace('//', '//dealer:s3cret-pw@')}/feed.ndjson`,
      `${base.replace('//', '//dealer@')}/feed.ndjson`,
    ]) {
      const res = await as(t, seller.liveKey)
        .post('/v1/imports')
        .send({ sourceUrl, format: 'ndjson' });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual(['sourceUrl']);
      expect(res.text).not.toContain('s3cret-pw');
      expect(res.text).not.toContain('dealer');
    }
    expect(await count()).toBe(before);
  });

  it('keeps the first 128 characters of a failed line’s externalId in the results', async () => {
    const long = 'x'.repeat(199_990) + '-the-end';
    const res = await as(t, seller.liveKey)
      .post('/v1/imports')
      .set('Content-Type', 'application/x-ndjson')
      .send(JSON.stringify(aListing().with({ externalId: long }).build()) + '\n')
      .expect(202);
    expect(await finished(res.body.data.id)).toMatchObject({
      status: 'succeeded_with_errors',
      counts: { failed: 1 },
    });
    const results = await as(t, seller.liveKey)
      .get(`/v1/imports/${res.body.data.id}/results`)
      .expect(200);
    expect(results.body.data).toMatchObject([
      { line: 1, outcome: 'failed', externalId: long.slice(0, 128) },
    ]);
    expect(results.body.data[0].error.details.map((d: { field: string }) => d.field)).toEqual([
      'externalId',
    ]);
  });
});
