import { randomUUID } from 'node:crypto';
import {
  aDashboardOwner,
  addMember,
  csrfFrom,
  type DashboardUser,
  signIn,
  STRONG_PASSWORD,
} from '../support/dashboard';
import { createTestApp, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';

const BASE = '/dashboard/webhooks';

/** The one-time form token of the create or rotate form on `path`. */
async function formOf(user: DashboardUser, path: string) {
  const page = await user.agent.get(path).expect(200);
  const token = /name="formToken" value="([^"]+)"/.exec(page.text)?.[1];
  const csrf = /<meta name="csrf-token" content="([^"]*)">/.exec(page.text)?.[1];
  if (!token || !csrf) throw new Error(`No form token on ${path}`);
  return { formToken: token, _csrf: csrf };
}

/** A `datetime-local` value (Stockholm time) `hoursAgo` before now. */
function localHoursAgo(hoursAgo: number): string {
  const parts = new Intl.DateTimeFormat('sv-SE', {
    timeZone: 'Europe/Stockholm',
    dateStyle: 'short',
    timeStyle: 'short',
  }).format(new Date(Date.now() - hoursAgo * 3_600_000));
  return parts.replace(' ', 'T');
}

/** Field error text beside `field` on a re-rendered form. */
const fieldError = (html: string, field: string) =>
  new RegExp(`id="${field}-error"><span class="visually-hidden">Error: </span>([^<]*)<`).exec(
    html,
  )?.[1];

describe('Dashboard: webhooks', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let owner: DashboardUser;

  beforeAll(async () => {
    t = await createTestApp();
    receiver = await WebhookReceiver.start();
    owner = await aDashboardOwner(t, { status: 'APPROVED' });
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  /** Creates an endpoint through the form; answers its id and secret. */
  async function createEndpoint(
    user: DashboardUser,
    fields: Record<string, string | string[]> = {},
  ): Promise<{ id: string; secret: string }> {
    const form = await formOf(user, `${BASE}/new`);
    const res = await user.agent
      .post(BASE)
      .type('form')
      .send({ ...form, url: receiver.url('/hooks'), ...fields })
      .expect(201);
    const secret = /<code id="webhook-secret" class="secret">(whsec_[A-Za-z0-9]+)<\/code>/.exec(
      res.text,
    )![1];
    const id = /href="\/dashboard\/webhooks\/([0-9a-f-]{36})"/.exec(res.text)![1];
    return { id, secret };
  }

  const auditOf = (accountId: string, action: string) =>
    t.dataSource.query(
      `SELECT actor_type, actor_id, target, details FROM audit_log WHERE account_id = $1 AND action = $2`,
      [accountId, action],
    );

  describe('list and create', () => {
    it("lists the mode's endpoints with the auto-disable rule in words", async () => {
      const user = await aDashboardOwner(t, { status: 'APPROVED' });
      const empty = await user.agent.get(BASE).expect(200);
      expect(empty.text).toContain('<h1>Webhooks</h1>');
      expect(empty.text).toContain('attempted up to 10 times');
      expect(empty.text).toContain('No endpoints in test mode yet.');
      expect(empty.text).toContain('href="/dashboard/webhooks/new"');
      const { id } = await createEndpoint(user, {
        events: ['listing.created', 'listing.sold'],
        description: 'Lager & <kassa>',
      });
      await t.dataSource.query(
        `UPDATE webhook_endpoints SET consecutive_failures = 1234 WHERE id = $1`,
        [id],
      );
      const list = await user.agent.get(BASE).expect(200);
      expect(list.text).toContain(receiver.url('/hooks'));
      expect(list.text).toContain('listing.created, listing.sold');
      expect(list.text).toContain('Lager &amp; &lt;kassa&gt;');
      expect(list.text).toContain('>Active<');
      // The streak, in Swedish digit grouping (a no-break space).
      expect(list.text).toMatch(/<td>1\s234<\/td>/u);
    });

    it('shows the secret once (201, no-store, no redirect) and never on a later page', async () => {
      const form = await formOf(owner, `${BASE}/new`);
      const res = await owner.agent
        .post(BASE)
        .type('form')
        .send({ ...form, url: receiver.url('/hooks'), events: 'listing.created' })
        .expect(201);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.location).toBeUndefined();
      const secret = /(whsec_[A-Za-z0-9]{32})/.exec(res.text)![1];
      const [row] = await t.dataSource.query(
        `SELECT id, secret, events FROM webhook_endpoints WHERE account_id = $1 AND secret = $2`,
        [owner.accountId, secret],
      );
      expect(row.events).toEqual(['listing.created']);
      for (const path of [BASE, `${BASE}/${row.id}`, `${BASE}/${row.id}/edit`, `${BASE}/new`])
        expect((await owner.agent.get(path).expect(200)).text).not.toContain(secret);

      // The same form again (reload, back and submit): nothing new, no secret.
      const again = await owner.agent
        .post(BASE)
        .type('form')
        .send({ ...form, url: receiver.url('/hooks'), events: 'listing.created' })
        .expect(409);
      expect(again.text).toContain('This form was already sent');
      expect(again.text).not.toMatch(/whsec_/);
      const [{ count }] = await t.dataSource.query(
        `SELECT count(*)::int AS count FROM webhook_endpoints WHERE account_id = $1 AND url = $2`,
        [owner.accountId, receiver.url('/hooks')],
      );
      expect(count).toBe(1);

      const [audit] = await auditOf(owner.accountId, 'endpoint.created');
      expect(audit).toMatchObject({ actor_type: 'user', target: row.id });
      expect(JSON.stringify(audit)).not.toContain(secret);
    });

    it('two submits of one form at once make one endpoint', async () => {
      const user = await aDashboardOwner(t, { status: 'APPROVED' });
      const form = await formOf(user, `${BASE}/new`);
      const send = () =>
        user.agent
          .post(BASE)
          .type('form')
          .send({ ...form, url: receiver.url('/race') });
      const statuses = (await Promise.all([send(), send()])).map((r) => r.status).sort();
      expect(statuses).toEqual([201, 409]);
    });

    it('bad input re-renders with the messages in the summary and beside the field', async () => {
      const form = await formOf(owner, `${BASE}/new`);
      const res = await owner.agent
        .post(BASE)
        .type('form')
        .send({ ...form, url: 'not a url', events: ['listing.created', 'listing.exploded'] })
        .expect(400);
      expect(fieldError(res.text, 'url')).toBe('url must be an absolute http(s) URL');
      expect(fieldError(res.text, 'events')).toMatch(/^events must contain only: listing.created/);
      expect(res.text).toContain('class="error-summary"');
      expect(res.text).toContain('href="#url"');
      expect(res.text).toContain('value="not a url"');
      expect(res.text).toMatch(/value="listing.created" checked/);
      // The refused submit did not use up a token: a new form token is on the page.
      const token = /name="formToken" value="([^"]+)"/.exec(res.text)![1];
      expect(token).not.toBe(form.formToken);
      const long = await owner.agent
        .post(BASE)
        .type('form')
        .send({ ...form, url: receiver.url('/x'), description: 'x'.repeat(501) })
        .expect(400);
      expect(fieldError(long.text, 'description')).toMatch(/description must be/);
    });

    it("refuses a private address beside the URL field (the API's SSRF guard)", async () => {
      const guarded = await createTestApp({
        databaseName: t.databaseName,
        role: 'api',
        env: { FETCH_ALLOW_PRIVATE_TARGETS: 'false' },
      });
      try {
        const user = await aDashboardOwner(guarded, { status: 'APPROVED' });
        const form = await formOf(user, `${BASE}/new`);
        const res = await user.agent
          .post(BASE)
          .type('form')
          .send({ ...form, url: 'http://127.0.0.1:9/hooks' })
          .expect(400);
        expect(fieldError(res.text, 'url')).toBe('url must resolve to a public address.');
        const [{ count }] = await guarded.dataSource.query(
          `SELECT count(*)::int AS count FROM webhook_endpoints WHERE account_id = $1`,
          [user.accountId],
        );
        expect(count).toBe(0);
      } finally {
        await guarded.close();
      }
    });

    it('a pending account reads but cannot add endpoints', async () => {
      const pending = await aDashboardOwner(t);
      const page = await pending.agent.get(BASE).expect(200);
      expect(page.text).toContain('Webhooks can be added once your account has API access');
      await pending.agent.get(`${BASE}/new`).expect(403);
      await pending.agent
        .post(BASE)
        .type('form')
        .send({ _csrf: pending.csrf, url: receiver.url('/hooks') })
        .expect(403);
    });

    it("shows only the mode's endpoints", async () => {
      const user = await aDashboardOwner(t, { status: 'APPROVED' });
      await createEndpoint(user, { url: receiver.url('/test-mode') });
      await user.agent
        .post('/dashboard/mode')
        .type('form')
        .send({ _csrf: user.csrf, mode: 'live', next: BASE })
        .expect(303);
      const live = await user.agent.get(BASE).expect(200);
      expect(live.text).toContain('No endpoints in live mode yet.');
      expect(live.text).not.toContain(receiver.url('/test-mode'));
    });
  });

  describe('roles and foreign ids', () => {
    it('a viewer reads every page, but each POST is 403 and changes nothing', async () => {
      const { id } = await createEndpoint(owner, { url: receiver.url('/viewer') });
      const viewer = await aDashboardOwner(t);
      await addMember(t, viewer.email, owner.accountId, 'viewer');
      // Sign in again: the session picks the account it had; switch to the owner's.
      const { agent } = await signIn(t, viewer.email, STRONG_PASSWORD);
      const csrf = await csrfFrom(agent);
      await agent
        .post('/dashboard/account')
        .type('form')
        .send({ _csrf: csrf, accountId: owner.accountId })
        .expect(303);
      const csrf2 = await csrfFrom(agent);
      const list = await agent.get(BASE).expect(200);
      expect(list.text).toContain(receiver.url('/viewer'));
      expect(list.text).not.toContain('href="/dashboard/webhooks/new"');
      const page = await agent.get(`${BASE}/${id}`).expect(200);
      expect(page.text).not.toContain('Send test event');
      for (const path of [
        BASE,
        `${BASE}/${id}`,
        `${BASE}/${id}/test`,
        `${BASE}/${id}/rotate`,
        `${BASE}/${id}/delete`,
        `${BASE}/${id}/disable`,
        `${BASE}/${id}/recover`,
        `${BASE}/${id}/deliveries/${randomUUID()}/retry`,
      ]) {
        await agent
          .post(path)
          .type('form')
          .send({
            _csrf: csrf2,
            url: receiver.url('/viewer2'),
            grace: '0',
            since: localHoursAgo(1),
          })
          .expect(403);
      }
      await agent.get(`${BASE}/new`).expect(403);
      const [row] = await t.dataSource.query(
        `SELECT is_active FROM webhook_endpoints WHERE id = $1`,
        [id],
      );
      expect(row.is_active).toBe(true);
    });

    it("another account's endpoint or delivery, or a non-uuid, is a 404 page", async () => {
      const other = await aDashboardOwner(t, { status: 'APPROVED' });
      const { id } = await createEndpoint(other, { url: receiver.url('/foreign') });
      const test = await other.agent
        .post(`${BASE}/${id}/test`)
        .type('form')
        .send({ _csrf: other.csrf })
        .expect(303);
      const deliveryId = /deliveries\/([0-9a-f-]{36})/.exec(test.headers.location)![1];
      const mine = await createEndpoint(owner, { url: receiver.url('/mine') });

      for (const path of [
        `${BASE}/${id}`,
        `${BASE}/${id}/edit`,
        `${BASE}/${id}/rotate`,
        `${BASE}/${id}/delete`,
        `${BASE}/${id}/deliveries/${deliveryId}`,
        `${BASE}/${mine.id}/deliveries/${deliveryId}`,
        `${BASE}/not-a-uuid`,
        `${BASE}/${mine.id}/deliveries/nope`,
      ]) {
        const res = await owner.agent.get(path);
        expect([path, res.status]).toEqual([path, 404]);
        expect(res.type).toBe('text/html');
      }
      for (const path of [
        `${BASE}/${id}`,
        `${BASE}/${id}/test`,
        `${BASE}/${id}/delete`,
        `${BASE}/${id}/enable`,
        `${BASE}/${id}/rotate`,
        `${BASE}/${id}/recover`,
        `${BASE}/${id}/deliveries/${deliveryId}/retry`,
        `${BASE}/${mine.id}/deliveries/${deliveryId}/retry`,
      ]) {
        const res = await owner.agent
          .post(path)
          .type('form')
          .send({
            _csrf: owner.csrf,
            url: receiver.url('/x'),
            grace: '1',
            since: localHoursAgo(1),
          });
        expect([path, res.status]).toEqual([path, 404]);
      }
      const [row] = await t.dataSource.query(`SELECT url FROM webhook_endpoints WHERE id = $1`, [
        id,
      ]);
      expect(row.url).toBe(receiver.url('/foreign'));
    });
  });

  describe('an endpoint', () => {
    let id: string;
    beforeAll(async () => {
      ({ id } = await createEndpoint(owner, { url: receiver.url('/ep') }));
    });

    it("edits with the API's rules; bad input re-renders beside the field", async () => {
      const page = await owner.agent.get(`${BASE}/${id}/edit`).expect(200);
      expect(page.text).toContain(`value="${receiver.url('/ep')}"`);
      const bad = await owner.agent
        .post(`${BASE}/${id}`)
        .type('form')
        .send({ _csrf: owner.csrf, url: 'ftp://example.se/x' })
        .expect(400);
      expect(fieldError(bad.text, 'url')).toBe('url must be an absolute http(s) URL');
      await owner.agent
        .post(`${BASE}/${id}`)
        .type('form')
        .send({
          _csrf: owner.csrf,
          url: receiver.url('/ep2'),
          description: 'Butikens lager',
          events: 'listing.sold',
        })
        .expect(303)
        .expect('Location', `${BASE}/${id}?done=updated`);
      const [row] = await t.dataSource.query(
        `SELECT url, description, events FROM webhook_endpoints WHERE id = $1`,
        [id],
      );
      expect(row).toEqual({
        url: receiver.url('/ep2'),
        description: 'Butikens lager',
        events: ['listing.sold'],
      });
      const shown = await owner.agent.get(`${BASE}/${id}?done=updated`).expect(200);
      expect(shown.text).toContain('The endpoint is saved.');
      expect(await auditOf(owner.accountId, 'endpoint.updated')).toHaveLength(1);
    });

    it('sends a test, shows the delivery with its attempt, the answer escaped', async () => {
      receiver.replyWith('/ep2', { status: 200, body: '<script>alert(1)</script> tack' });
      const res = await owner.agent
        .post(`${BASE}/${id}/test`)
        .type('form')
        .send({ _csrf: owner.csrf })
        .expect(303);
      expect(res.headers.location).toMatch(
        new RegExp(`^${BASE}/${id}/deliveries/[0-9a-f-]{36}\\?done=test-sent$`),
      );
      expect(receiver.at('/ep2').at(-1)!.body.event).toBe('webhook.test');
      const page = await owner.agent.get(res.headers.location).expect(200);
      expect(page.text).toContain('A webhook.test delivery was sent.');
      expect(page.text).toContain('HTTP 200');
      expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; tack');
      // The attempt keeps its own answer too, beside its time and status.
      expect(page.text).toContain(
        '<td><code class="excerpt">&lt;script&gt;alert(1)&lt;/script&gt; tack</code></td>',
      );
      expect(page.text).not.toContain('<script>alert(1)');
      expect(page.text).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
      expect(page.text).toMatch(/\d+ ms/);
      const [audit] = await auditOf(owner.accountId, 'endpoint.test_sent');
      expect(audit).toMatchObject({ actor_type: 'user', target: id });
      const endpointPage = await owner.agent.get(`${BASE}/${id}`).expect(200);
      expect(endpointPage.text).toContain('webhook.test');
      expect(endpointPage.text).toContain('status-succeeded');
    });

    it('filters deliveries by status and event and pages them with links', async () => {
      await t.dataSource.query(
        `INSERT INTO webhook_deliveries (id, endpoint_id, event, payload, status, attempts, created_at)
         SELECT gen_random_uuid(), $1, 'listing.sold', '{}', 'failed', 10,
                now() - n * interval '1 minute'
         FROM generate_series(1, 25) n`,
        [id],
      );
      const failed = await owner.agent.get(`${BASE}/${id}?status=failed`).expect(200);
      expect(failed.text).not.toContain('<td>webhook.test</td>');
      const rowsOf = (html: string) => html.match(/<td><span class="status status-failed">/g) ?? [];
      expect(rowsOf(failed.text)).toHaveLength(20);
      // Cursor paging: Older continues after the page's last (20th newest) delivery.
      const [twentieth]: { id: string }[] = await t.dataSource.query(
        `SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'failed'
         ORDER BY created_at DESC, id DESC OFFSET 19 LIMIT 1`,
        [id],
      );
      const older = `${BASE}/${id}?status=failed&amp;before=${twentieth.id}#deliveries`;
      expect(failed.text).toContain(`href="${older}" rel="next">Older</a>`);
      expect(failed.text).not.toContain('>Newest</a>');
      const second = await owner.agent
        .get(`${BASE}/${id}?status=failed&before=${twentieth.id}`)
        .expect(200);
      expect(rowsOf(second.text)).toHaveLength(5);
      expect(second.text).toContain(
        `href="${BASE}/${id}?status=failed#deliveries" rel="first">Newest</a>`,
      );
      expect(second.text).not.toContain('>Older</a>');
      const notAnId = await owner.agent.get(`${BASE}/${id}?before=1%20OR%201=1`).expect(400);
      expect(notAnId.text).toContain('before must be the id of a delivery.');
      const tests = await owner.agent.get(`${BASE}/${id}?event=webhook.test`).expect(200);
      expect(tests.text).toContain('<td>webhook.test</td>');
      expect(tests.text).not.toContain('<td>listing.sold</td>');
      const bad = await owner.agent.get(`${BASE}/${id}?status=lost`).expect(400);
      expect(bad.text).toContain('status must be one of: pending, succeeded, failed');
      expect(bad.text).toContain('class="error-summary"');
    });

    it('retries a delivery (audited); a disabled endpoint asks to be enabled first', async () => {
      // A delivery the service made (the test's), not one of the seeded rows: the worker sends
      // the retry to the receiver, which checks its body against the document.
      const [delivery] = await t.dataSource.query(
        `SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 AND event = 'webhook.test' LIMIT 1`,
        [id],
      );
      await owner.agent
        .post(`${BASE}/${id}/deliveries/${delivery.id}/retry`)
        .type('form')
        .send({ _csrf: owner.csrf })
        .expect(303)
        .expect('Location', `${BASE}/${id}/deliveries/${delivery.id}?done=retried`);
      expect(await auditOf(owner.accountId, 'delivery.retried')).toEqual([
        expect.objectContaining({ actor_type: 'user', target: delivery.id }),
      ]);

      await owner.agent
        .post(`${BASE}/${id}/disable`)
        .type('form')
        .send({ _csrf: owner.csrf })
        .expect(303);
      const refused = await owner.agent
        .post(`${BASE}/${id}/deliveries/${delivery.id}/retry`)
        .type('form')
        .send({ _csrf: owner.csrf })
        .expect(400);
      expect(refused.text).toContain('The endpoint is disabled: enable it first');
      const page = await owner.agent.get(`${BASE}/${id}`).expect(200);
      expect(page.text).toContain('>Disabled<');
      expect(page.text).toContain('Enable endpoint');
      await t.dataSource.query(
        `UPDATE webhook_endpoints SET consecutive_failures = 7 WHERE id = $1`,
        [id],
      );
      await owner.agent
        .post(`${BASE}/${id}/enable`)
        .type('form')
        .send({ _csrf: owner.csrf })
        .expect(303)
        .expect('Location', `${BASE}/${id}?done=enabled`);
      const [row] = await t.dataSource.query(
        `SELECT is_active, consecutive_failures FROM webhook_endpoints WHERE id = $1`,
        [id],
      );
      expect(row).toEqual({ is_active: true, consecutive_failures: 0 });
    });

    it("recovers since a local time, with the API's limits beside the field", async () => {
      const bad = await owner.agent
        .post(`${BASE}/${id}/recover`)
        .type('form')
        .send({ _csrf: owner.csrf, since: 'last tuesday' })
        .expect(400);
      expect(fieldError(bad.text, 'since')).toMatch(/^Enter a date and time/);
      const future = await owner.agent
        .post(`${BASE}/${id}/recover`)
        .type('form')
        .send({ _csrf: owner.csrf, since: localHoursAgo(-48) })
        .expect(400);
      expect(fieldError(future.text, 'since')).toBe('since must not be in the future.');
      const old = await owner.agent
        .post(`${BASE}/${id}/recover`)
        .type('form')
        .send({ _csrf: owner.csrf, since: localHoursAgo(24 * 400) })
        .expect(400);
      expect(fieldError(old.text, 'since')).toMatch(/beyond the event retention/);
      const ok = await owner.agent
        .post(`${BASE}/${id}/recover`)
        .type('form')
        .send({ _csrf: owner.csrf, since: localHoursAgo(2) })
        .expect(303);
      expect(ok.headers.location).toBe(`${BASE}/${id}?done=recovered&queued=0`);
      expect((await owner.agent.get(ok.headers.location).expect(200)).text).toContain(
        '0 deliveries are queued again.',
      );
      const [audit] = await auditOf(owner.accountId, 'deliveries.recovered');
      expect(audit).toMatchObject({ actor_type: 'user', target: id });
    });

    it('rotates the secret: the new one shown once, grace checked, a resubmit does nothing', async () => {
      const form = await formOf(owner, `${BASE}/${id}/rotate`);
      const bad = await owner.agent
        .post(`${BASE}/${id}/rotate`)
        .type('form')
        .send({ ...form, grace: '99' })
        .expect(400);
      expect(fieldError(bad.text, 'grace')).toBe('Enter a whole number of hours from 0 to 72.');
      const res = await owner.agent
        .post(`${BASE}/${id}/rotate`)
        .type('form')
        .send({ ...form, grace: '1' })
        .expect(200);
      expect(res.headers['cache-control']).toBe('no-store');
      const secret = /(whsec_[A-Za-z0-9]{32})/.exec(res.text)![1];
      expect(res.text).toContain('keeps signing beside the new one for 1 hour.');
      const [row] = await t.dataSource.query(
        `SELECT secret, jsonb_array_length(previous_secrets) AS previous FROM webhook_endpoints WHERE id = $1`,
        [id],
      );
      expect(row).toEqual({ secret, previous: 1 });
      const again = await owner.agent
        .post(`${BASE}/${id}/rotate`)
        .type('form')
        .send({ ...form, grace: '1' })
        .expect(303);
      expect(again.headers.location).toBe(`${BASE}/${id}`);
      const [after] = await t.dataSource.query(
        `SELECT secret FROM webhook_endpoints WHERE id = $1`,
        [id],
      );
      expect(after.secret).toBe(secret);
      for (const path of [BASE, `${BASE}/${id}`, `${BASE}/${id}/rotate`])
        expect((await owner.agent.get(path).expect(200)).text).not.toContain(secret);
      const audits = await auditOf(owner.accountId, 'endpoint.secret_rotated');
      expect(audits).toHaveLength(1);
      expect(JSON.stringify(audits)).not.toContain('whsec_');
    });

    it('deletes after a confirmation page', async () => {
      const page = await owner.agent.get(`${BASE}/${id}/delete`).expect(200);
      expect(page.text).toContain('Delete endpoint</button>');
      await owner.agent
        .post(`${BASE}/${id}/delete`)
        .type('form')
        .send({ _csrf: owner.csrf })
        .expect(303)
        .expect('Location', `${BASE}?done=deleted`);
      await owner.agent.get(`${BASE}/${id}`).expect(404);
      expect(await auditOf(owner.accountId, 'endpoint.deleted')).toHaveLength(1);
    });
  });
});
