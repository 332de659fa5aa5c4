import request from 'supertest';
import { UsageRecorder } from '../../src/usage/usage.recorder';
import { addMember, aDashboardOwner, csrfFrom, DashboardUser } from '../support/dashboard';
import { anAccount, as, createKey } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';

type Body = Record<string, unknown>;
const ndjson = (lines: (Body | string)[]) =>
  lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n';
const item = (externalId: string, fields: Body = {}) =>
  aListing()
    .with({ externalId, ...fields })
    .build();
/** A table cell's number as sv-SE writes it (narrow no-break space between thousands). */
const num = (n: number) => new Intl.NumberFormat('sv-SE').format(n);
const rowsOf = (html: string, tableId: string) => {
  const table = new RegExp(`<table id="${tableId}">([\\s\\S]*?)</table>`).exec(html);
  if (!table) return [];
  return [...table[1].matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
    .map((m) => [...m[1].matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) => strip(c[1])))
    .filter((cells) => cells.length > 0);
};
const strip = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

describe('Dashboard: Usage and Imports pages', () => {
  let t: TestApp;
  let owner: DashboardUser;
  let testKey: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { IMPORT_SWEEP_EVERY: '1s' } });
    owner = await aDashboardOwner(t, { status: 'APPROVED' });
    testKey = await createKey(t, owner.accountId, { kind: 'test', name: 'Feed sync' });
  });
  afterAll(() => t.close());

  const flushUsage = () => t.app.get(UsageRecorder).flush();
  async function finished(id: string, key = testKey) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const res = await as(t, key).get(`/v1/imports/${id}`).expect(200);
      if (!['queued', 'running'].includes(res.body.data.status)) return res.body.data;
      if (Date.now() > deadline) throw new Error(`import ${id} still ${res.body.data.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const upload = (body: string, query = '', key = testKey) =>
    as(t, key)
      .post(`/v1/imports${query}`)
      .set('Content-Type', 'application/x-ndjson')
      .send(body)
      .expect(202);

  async function aViewer(): Promise<DashboardUser> {
    const viewer = await aDashboardOwner(t);
    await addMember(t, viewer.email, owner.accountId, 'viewer');
    const page = await viewer.agent.get('/dashboard').expect(200);
    const csrf = /<meta name="csrf-token" content="([^"]*)">/.exec(page.text)![1];
    await viewer.agent
      .post('/dashboard/account')
      .type('form')
      .send({ _csrf: csrf, accountId: owner.accountId })
      .expect(303);
    return { ...viewer, csrf: await csrfFrom(viewer.agent) };
  }

  describe('Usage', () => {
    it('shows per day, per status class and per endpoint what GET /v1/me/usage answers for the key', async () => {
      await as(t, testKey).get('/v1/me').expect(200);
      await as(t, testKey).get('/v1/me').expect(200);
      await as(t, testKey).get('/v1/listings/not-a-uuid').expect(404);
      await flushUsage();
      const api = (await as(t, testKey).get('/v1/me/usage?days=7').expect(200)).body.data;
      await flushUsage(); // the read above is counted too: the page would show it
      const apiAfter = (await as(t, testKey).get('/v1/me/usage?days=7').expect(200)).body.data;
      await flushUsage();
      const keyId = (await t.dataSource.query(`SELECT id FROM api_keys WHERE account_id = $1`, [
        owner.accountId,
      ])) as { id: string }[];
      const page = await owner.agent
        .get(`/dashboard/usage?period=7&key=${keyId[0].id}`)
        .expect(200);
      expect(page.headers['cache-control']).toBe('no-store');
      const expected = (await as(t, testKey).get('/v1/me/usage?days=7').expect(200)).body.data;
      // The page was read between apiAfter and expected: it shows one of them (the API's own read
      // is counted after its answer), and at least what `api` had.
      const daily = rowsOf(page.text, 'usage-daily');
      expect(daily).toHaveLength(8); // header + 7 days
      expect(daily[0]).toEqual(['Date (UTC)', '2xx', '4xx', 'Total', 'Errors']);
      const today = daily[7];
      const candidates = [apiAfter, expected].map((u: { daily: Body[] }) => u.daily[6]);
      expect(
        candidates.map((d) => [num(d.requests as number), num(d.errors as number)]),
      ).toContainEqual([today[3], today[4]]);
      expect(Number(today[2])).toBe(1); // the 404
      expect(api.daily.map((d: Body) => d.date)).toEqual(daily.slice(1).map((r) => r[0]));
      const endpoints = rowsOf(page.text, 'usage-endpoints');
      expect(endpoints).toContainEqual(['GET', '/v1/me', '2', '0']);
      expect(endpoints).toContainEqual(['GET', '/v1/listings/:id', '1', '1']);
      // the chart's data island holds the same series
      const island =
        /<script type="application\/json" id="usage-chart-data">([^<]*)<\/script>/.exec(page.text);
      const chart = JSON.parse(island![1]);
      expect(chart.series.map((s: Body) => s.label)).toEqual(['2xx', '4xx']);
      expect(chart.series[1].values[6]).toBe(1);
      expect(chart.x).toHaveLength(7);
    });

    it('numbers agree with the API exactly when nothing is in flight (all keys of the mode = this one)', async () => {
      await flushUsage();
      const ids = (await t.dataSource.query(`SELECT id FROM api_keys WHERE account_id = $1`, [
        owner.accountId,
      ])) as { id: string }[];
      const { UsageService } = await import('../../src/usage/usage.service');
      const usage = t.app.get(UsageService);
      const viaApi = await usage.summarize(ids[0].id, 30);
      const viaPage = await usage.summarizeKeys([ids[0].id], 30);
      expect(viaPage.summary).toEqual(viaApi);
      const page = await owner.agent.get('/dashboard/usage').expect(200);
      const totals = rowsOf(page.text, 'usage-daily').slice(1);
      expect(totals.map((r) => r[r.length - 2])).toEqual(viaApi.daily.map((d) => num(d.requests)));
    });

    it('shows the current rate-limit windows of the active keys', async () => {
      await as(t, testKey).get('/v1/me').expect(200);
      const page = await owner.agent.get('/dashboard/usage').expect(200);
      const windows = rowsOf(page.text, 'usage-windows');
      expect(windows[0]).toEqual(['Key', 'Window', 'Limit a minute', 'Used', 'Resets at']);
      const reads = windows.find((r) => r[0].startsWith('Feed sync') && r[1] === 'Reads')!;
      expect(Number(reads[3])).toBeGreaterThanOrEqual(1);
      expect(reads[4]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} \(in \d+ s\)$/);
      expect(windows.find((r) => r[1] === 'Writes')![3]).toBe('0');
    });

    it('refuses bad filters with a message beside the field, not a 500', async () => {
      const bad = await owner.agent.get('/dashboard/usage?days=91').expect(400);
      expect(bad.text).toContain('There is a problem');
      expect(bad.text).toContain('days must be an integer from 1 to 90');
      expect(bad.text).toMatch(/id="days"[^>]*aria-invalid="true"/);
      const word = await owner.agent.get('/dashboard/usage?days=ten').expect(400);
      expect(word.text).toContain('days must be an integer from 1 to 90');
      const period = await owner.agent.get('/dashboard/usage?period=0').expect(400);
      expect(period.text).toMatch(/id="period-error"/);
      const other = await anAccount(t).build();
      const foreignKey = (await t.dataSource.query(
        `SELECT id FROM api_keys WHERE account_id = $1`,
        [other.id],
      )) as { id: string }[];
      const foreign = await owner.agent.get(`/dashboard/usage?key=${foreignKey[0].id}`).expect(400);
      expect(foreign.text).toContain('Choose one of this account&#39;s keys in this mode.');
      await owner.agent.get('/dashboard/usage?key=%3Cscript%3E').expect(400);
    });

    it('a number of days overrides the period; a viewer reads it too', async () => {
      const page = await owner.agent.get('/dashboard/usage?period=90&days=3').expect(200);
      expect(rowsOf(page.text, 'usage-daily')).toHaveLength(4);
      const viewer = await aViewer();
      await viewer.agent.get('/dashboard/usage?period=7').expect(200);
    });
  });

  describe('Imports', () => {
    it("lists the mode's imports and follows one to its end; the progress fragment stops polling", async () => {
      const res = await upload(
        ndjson([item('dash-a'), item('dash-b', { price: -5 }), item('dash-c')]),
      );
      const id = res.body.data.id as string;
      const done = await finished(id);
      expect(done.status).toBe('succeeded_with_errors');
      const list = await owner.agent.get('/dashboard/imports').expect(200);
      const rows = rowsOf(list.text, 'imports');
      const row = rows.find((r) => r[0] === id.slice(0, 8))!;
      expect(row.slice(1, 6)).toEqual(['succeeded with errors', 'upsert', '3', '3', '1']);
      expect(row[6]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);

      const fragment = await owner.agent.get(`/dashboard/imports/${id}/progress`).expect(200);
      expect(fragment.text).toContain('role="status"');
      expect(fragment.text).not.toContain('hx-trigger');
      expect(fragment.text).not.toContain('<html');

      // Failed lines by default, with their field errors; the download is the API's NDJSON.
      const detail = await owner.agent.get(`/dashboard/imports/${id}`).expect(200);
      const results = rowsOf(detail.text, 'import-results');
      expect(results.slice(1).map((r) => [r[0], r[1], r[2]])).toEqual([['2', 'dash-b', 'failed']]);
      expect(results[1][4]).toContain('price');
      const download = await owner.agent
        .get(`/dashboard/imports/${id}/results.ndjson?outcome=failed`)
        .expect(200);
      expect(download.headers['content-type']).toMatch(/^application\/x-ndjson/);
      const viaApi = await as(t, testKey)
        .get(`/v1/imports/${id}/results?outcome=failed`)
        .set('Accept', 'application/x-ndjson')
        .expect(200);
      expect(download.text).toBe(viaApi.text);
      const all = await owner.agent.get(`/dashboard/imports/${id}?outcome=`).expect(200);
      expect(rowsOf(all.text, 'import-results')).toHaveLength(4);
    });

    it("an unfinished import's progress fragment polls every 2 s", async () => {
      // Held, written directly: no worker picks it up, and it stays unfinished until cancelled.
      const [row] = await t.dataSource.query(
        `INSERT INTO imports (account_id, livemode, status, mode, dry_run, format, source, source_url)
         VALUES ($1, false, 'held', 'mirror', false, 'ndjson', 'url', 'https://feeds.example.se/x')
         RETURNING id`,
        [owner.accountId],
      );
      const fragment = await owner.agent.get(`/dashboard/imports/${row.id}/progress`).expect(200);
      expect(fragment.text).toContain(`hx-get="/dashboard/imports/${row.id}/progress"`);
      expect(fragment.text).toContain('hx-trigger="every 2s"');
      expect(fragment.text).toContain('role="status"');
      const page = await owner.agent.get(`/dashboard/imports/${row.id}`).expect(200);
      expect(page.text).toContain('hx-trigger="every 2s"');
      await t.dataSource.query(
        `UPDATE imports SET status = 'cancelled', finished_at = now() WHERE id = $1`,
        [row.id],
      );
      const ended = await owner.agent.get(`/dashboard/imports/${row.id}/progress`).expect(200);
      expect(ended.text).not.toContain('hx-trigger');
    });

    it('pages results with the cursor and refuses a bad filter with a message', async () => {
      const lines = Array.from({ length: 55 }, (_, i) => item(`page-${i}`, { price: -1 }));
      const id = (await upload(ndjson(lines))).body.data.id as string;
      await finished(id);
      const first = await owner.agent.get(`/dashboard/imports/${id}`).expect(200);
      expect(rowsOf(first.text, 'import-results')).toHaveLength(51);
      const next = /href="([^"]*after=\d+)">Next page/.exec(first.text)![1].replace(/&amp;/g, '&');
      const second = await owner.agent.get(next).expect(200);
      expect(
        rowsOf(second.text, 'import-results')
          .slice(1)
          .map((r) => r[0]),
      ).toEqual(['51', '52', '53', '54', '55']);
      const bad = await owner.agent.get(`/dashboard/imports/${id}?outcome=exploded`).expect(400);
      expect(bad.text).toContain('outcome must be one of');
      expect(bad.text).toMatch(/id="outcome"[^>]*aria-invalid="true"/);
      const badList = await owner.agent.get('/dashboard/imports?status=done').expect(400);
      expect(badList.text).toContain('status must be one of');
      await owner.agent.get(`/dashboard/imports/${id}/results.ndjson?outcome=nope`).expect(400);
      const filtered = await owner.agent.get('/dashboard/imports?status=succeeded').expect(200);
      expect(
        rowsOf(filtered.text, 'imports')
          .slice(1)
          .every((r) => r[1] === 'succeeded'),
      ).toBe(true);
    });

    it('a held mirror shows its planned removals; a viewer cannot confirm (403); the owner confirms', async () => {
      for (const id of ['held-keep', 'held-gone-1', 'held-gone-2'])
        await as(t, testKey)
          .put(`/v1/listings/by-external-id/${id}`)
          .send(aListing().build())
          .expect(201);
      const id = (await upload(ndjson([item('held-keep')]), '?mode=mirror&maxRemovals=0')).body.data
        .id as string;
      const held = await finished(id);
      expect(held.status).toBe('held');
      const page = await owner.agent.get(`/dashboard/imports/${id}`).expect(200);
      expect(page.text).toContain('Confirm import');
      expect(page.text).toContain('Cancel import');
      const planned = rowsOf(page.text, 'planned-removals')
        .slice(1)
        .map((r) => r[0]);
      expect(planned.length).toBe(held.counts.plannedRemovals);
      expect(planned).toEqual(expect.arrayContaining(['held-gone-1', 'held-gone-2']));
      expect(page.text).toMatch(/Planned removals<\/dt><dd>\d+<\/dd>/);

      const viewer = await aViewer();
      const viewerPage = await viewer.agent.get(`/dashboard/imports/${id}`).expect(200);
      expect(viewerPage.text).not.toContain('Confirm import');
      await viewer.agent
        .post(`/dashboard/imports/${id}/confirm`)
        .type('form')
        .send({ _csrf: viewer.csrf })
        .expect(403);
      expect((await as(t, testKey).get(`/v1/imports/${id}`).expect(200)).body.data.status).toBe(
        'held',
      );

      const csrf = await csrfFrom(owner.agent, `/dashboard/imports/${id}`);
      const confirmed = await owner.agent
        .post(`/dashboard/imports/${id}/confirm`)
        .type('form')
        .send({ _csrf: csrf })
        .expect(303);
      expect(confirmed.headers.location).toBe(`/dashboard/imports/${id}?done=confirmed`);
      const done = await finished(id);
      expect(done.status).toBe('succeeded');
      expect(done.counts.removed).toBe(held.counts.plannedRemovals);
      // One audit row, the service's, by the user.
      const audit = await t.dataSource.query(
        `SELECT action, actor_type, actor_id FROM audit_log WHERE target = $1`,
        [id],
      );
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ action: 'import.confirmed', actor_type: 'user' });
      // Confirming again is refused on the page, with the reason.
      const again = await owner.agent
        .post(`/dashboard/imports/${id}/confirm`)
        .type('form')
        .send({ _csrf: csrf })
        .expect(409);
      expect(again.text).toContain('Only a held import can be confirmed; this one is succeeded.');
    });

    it('cancels a held import from the page', async () => {
      await as(t, testKey)
        .put('/v1/listings/by-external-id/cancel-gone')
        .send(aListing().build())
        .expect(201);
      const id = (await upload(ndjson([item('held-keep')]), '?mode=mirror&maxRemovals=0')).body.data
        .id as string;
      expect((await finished(id)).status).toBe('held');
      const csrf = await csrfFrom(owner.agent, `/dashboard/imports/${id}`);
      await owner.agent
        .post(`/dashboard/imports/${id}/cancel`)
        .type('form')
        .send({ _csrf: csrf })
        .expect(303);
      const page = await owner.agent.get(`/dashboard/imports/${id}?done=cancelled`).expect(200);
      expect(page.text).toContain('The import is cancelled.');
      expect((await as(t, testKey).get(`/v1/imports/${id}`).expect(200)).body.data.status).toBe(
        'cancelled',
      );
    });

    it("another account's import, another mode's or a malformed id is a 404 page", async () => {
      const other = await anAccount(t).build();
      const foreign = (
        await as(t, other.testKey)
          .post('/v1/imports')
          .set('Content-Type', 'application/x-ndjson')
          .send(ndjson([item('x')]))
          .expect(202)
      ).body.data.id as string;
      for (const path of [
        `/dashboard/imports/${foreign}`,
        `/dashboard/imports/${foreign}/progress`,
        `/dashboard/imports/${foreign}/results.ndjson`,
        '/dashboard/imports/not-an-id',
      ]) {
        const res = await owner.agent.get(path).expect(404);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
      }
      await owner.agent
        .post(`/dashboard/imports/${foreign}/confirm`)
        .type('form')
        .send({ _csrf: await csrfFrom(owner.agent) })
        .expect(404);
      // In live mode, the test-mode imports are not there.
      const liveKey = await createKey(t, owner.accountId, { kind: 'live' });
      expect(liveKey).toMatch(/live/);
      const mine = (await as(t, testKey).get('/v1/imports?limit=1').expect(200)).body.data[0].id;
      const csrf = await csrfFrom(owner.agent);
      await owner.agent.post('/dashboard/mode').type('form').send({ _csrf: csrf, mode: 'live' });
      await owner.agent.get(`/dashboard/imports/${mine}`).expect(404);
      const list = await owner.agent.get('/dashboard/imports').expect(200);
      expect(list.text).toContain('No imports in live mode.');
      await owner.agent
        .post('/dashboard/mode')
        .type('form')
        .send({ _csrf: await csrfFrom(owner.agent), mode: 'test' });
    });

    it('needs a session', async () => {
      const res = await request(t.app.getHttpServer()).get('/dashboard/imports').expect(303);
      expect(res.headers.location).toContain('/dashboard/sign-in');
    });
  });
});
