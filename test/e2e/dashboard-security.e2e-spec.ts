import { readFileSync } from 'node:fs';
import request from 'supertest';
import { DASHBOARD_CSP } from '../../src/dashboard/dashboard-http';
import {
  aDashboardOwner,
  addMember,
  csrfFrom,
  csrfOf,
  signIn,
  signUp,
  STRONG_PASSWORD,
} from '../support/dashboard';
import { DashboardProbeModule, probeWrites } from '../support/dashboard-probe.module';
import { createTestApp, TestApp } from '../support/test-app';

const livemodeOf = async (t: TestApp, email: string): Promise<boolean[]> =>
  (
    await t.dataSource.query(
      `SELECT s.livemode FROM dashboard_sessions s JOIN users u ON u.id = s.user_id
        WHERE u.email = $1 AND s.revoked_at IS NULL ORDER BY s.created_at DESC LIMIT 1`,
      [email],
    )
  ).map((r: { livemode: boolean }) => r.livemode);

describe('Dashboard: headers, assets, cookies, CSRF, roles, sessions and redirects', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ extraModules: [DashboardProbeModule] });
  });
  afterAll(() => t.close());

  describe('headers and assets', () => {
    it('every page: the exact CSP, no-store, nosniff, no referrer, and no inline script or style', async () => {
      const owner = await aDashboardOwner(t);
      for (const [agent, path] of [
        [owner.agent, '/dashboard'],
        [request.agent(t.app.getHttpServer()), '/dashboard/sign-in'],
        [request.agent(t.app.getHttpServer()), '/dashboard/sign-up'],
      ] as const) {
        const page = await agent.get(path).expect(200);
        expect(page.headers['content-security-policy']).toBe(DASHBOARD_CSP);
        expect(page.headers['cache-control']).toBe('no-store');
        expect(page.headers['x-content-type-options']).toBe('nosniff');
        expect(page.headers['referrer-policy']).toBe('no-referrer');
        expect(page.headers['x-frame-options']).toBe('DENY');
        expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
        expect(page.text).not.toMatch(/<style|\sstyle=/);
        expect(page.text).not.toMatch(/\son[a-z]+=/);
        expect(page.text).toContain(
          `<meta name="htmx-config" content='{"allowEval":false,"includeIndicatorStyles":false}'>`,
        );
        expect(page.text).toContain('<a class="skip-link" href="#main">');
      }
      expect(DASHBOARD_CSP).toBe(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
      );
    });

    it('assets under hashed names, cached for a year; htmx is the pinned 2.0.11 build', async () => {
      const page = await t.http().get('/dashboard/sign-in').expect(200);
      const urls = [...page.text.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map(
        (m) => m[1],
      );
      expect(urls).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^\/dashboard\/assets\/htmx\.[0-9a-f]{16}\.js$/),
          expect.stringMatching(/^\/dashboard\/assets\/dashboard\.[0-9a-f]{16}\.js$/),
          expect.stringMatching(/^\/dashboard\/assets\/dashboard\.[0-9a-f]{16}\.css$/),
        ]),
      );
      const htmx = urls.find((u) => u.includes('/htmx.'))!;
      const answer = await t.http().get(htmx).expect(200);
      expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(answer.headers['content-type']).toMatch(/^text\/javascript/);
      expect(answer.text).toBe(readFileSync(require.resolve('htmx.org/dist/htmx.min.js'), 'utf8'));
      expect(answer.text).toContain('2.0.11');
      const css = await t
        .http()
        .get(urls.find((u) => u.endsWith('.css'))!)
        .expect(200);
      expect(css.headers['content-type']).toMatch(/^text\/css/);
      const stale = await t.http().get('/dashboard/assets/htmx.0000000000000000.js');
      expect(stale.status).toBe(404);
      expect(stale.headers['cache-control']).toBe('no-store');
    });

    it('an unknown dashboard path is an HTML 404 page; an unknown API path stays JSON', async () => {
      const page = await t.http().get('/dashboard/no/such/page').expect(404);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('<h1>Page not found</h1>');
      expect(page.headers['content-security-policy']).toBe(DASHBOARD_CSP);
      const post = await t.http().post('/dashboard/nothing-here').expect(404);
      expect(post.headers['content-type']).toMatch(/^text\/html/);
      const api = await t.http().get('/v1/no-such-thing').expect(401);
      expect(api.headers['content-type']).toMatch(/^application\/json/);
      const outside = await t.http().get('/no-such-thing').expect(404);
      expect(outside.body.error.code).toBe('NOT_FOUND');
    });

    it('a form body over 16 KB is refused with an HTML 413 page before any route runs', async () => {
      const agent = request.agent(t.app.getHttpServer());
      const csrf = await csrfFrom(agent, '/dashboard/sign-up');
      const answer = await agent
        .post('/dashboard/sign-up')
        .type('form')
        .send({
          _csrf: csrf,
          email: 'big@example.se',
          password: STRONG_PASSWORD,
          company: 'x'.repeat(20_000),
        });
      expect(answer.status).toBe(413);
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
      expect(
        await t.dataSource.query(`SELECT 1 FROM users WHERE email = 'big@example.se'`),
      ).toHaveLength(0);
    });

    it('what people type is escaped wherever it is shown', async () => {
      const owner = await aDashboardOwner(t, { company: '<script>alert(1)</script> "AB"' });
      const page = await owner.agent.get('/dashboard').expect(200);
      expect(page.text).not.toContain('<script>alert(1)</script>');
      expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &quot;AB&quot;');
    });

    it('an unexpected error is a 500 page, without details', async () => {
      const owner = await aDashboardOwner(t);
      const page = await owner.agent.get('/dashboard/probe/boom').expect(500);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('Something went wrong');
      expect(page.text).not.toContain('probe failure');
    });

    it('the dashboard is not in the OpenAPI document', async () => {
      const document = JSON.parse(
        readFileSync(require.resolve('../../openapi/openapi.json'), 'utf8'),
      ) as { paths: Record<string, unknown> };
      expect(Object.keys(document.paths).filter((p) => p.includes('dashboard'))).toEqual([]);
      expect(Object.keys(document.paths).filter((p) => p.includes('admin'))).toEqual([]);
    });
  });

  describe('cookies', () => {
    it('without DASHBOARD_COOKIE_SECURE (tests): lsvc_session, HttpOnly, SameSite=Lax, Path=/, not Secure', async () => {
      const up = await signUp(t);
      const cookies = up.response.headers['set-cookie'] as unknown as string[];
      const session = cookies.find((c) => c.startsWith('lsvc_session='));
      expect(session).toMatch(
        /^lsvc_session=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax$/,
      );
    });

    it('by default: __Host-lsvc_session, Secure, HttpOnly, SameSite=Lax, Path=/', async () => {
      const owner = await aDashboardOwner(t);
      const secure = await createTestApp({
        databaseName: t.databaseName,
        env: { DASHBOARD_COOKIE_SECURE: undefined },
      });
      try {
        const page = await secure.http().get('/dashboard/sign-in').expect(200);
        const preSession = String(page.headers['set-cookie']);
        expect(preSession).toMatch(
          /^__Host-lsvc_csrf=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
        );
        const answer = await secure
          .http()
          .post('/dashboard/sign-in')
          .set('Cookie', preSession.split(';')[0])
          .type('form')
          .send({ _csrf: csrfOf(page.text), email: owner.email, password: owner.password })
          .expect(303);
        expect(String(answer.headers['set-cookie'])).toMatch(
          /^__Host-lsvc_session=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/,
        );
      } finally {
        await secure.close();
      }
    });

    it('the database keeps only the SHA-256 of the session token', async () => {
      const up = await signUp(t);
      const token = /lsvc_session=([A-Za-z0-9_-]{43})/.exec(
        String(up.response.headers['set-cookie']),
      )![1];
      const rows = await t.dataSource.query(
        `SELECT encode(token_hash, 'hex') AS h FROM dashboard_sessions
          WHERE token_hash = sha256(convert_to($1, 'UTF8'))`,
        [token],
      );
      expect(rows).toHaveLength(1);
      const clear = await t.dataSource.query(
        `SELECT 1 FROM dashboard_sessions WHERE encode(token_hash, 'escape') LIKE '%' || $1 || '%'
            OR csrf_token = $1`,
        [token],
      );
      expect(clear).toHaveLength(0);
    });
  });

  describe('CSRF and fetch metadata', () => {
    it('a POST without the token is refused with the 403 page, and nothing changes', async () => {
      const owner = await aDashboardOwner(t);
      const answer = await owner.agent
        .post('/dashboard/mode')
        .type('form')
        .send({ mode: 'live' })
        .expect(403);
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
      expect(answer.text).toContain('The form was out of date or incomplete');
      const wrong = await owner.agent
        .post('/dashboard/mode')
        .type('form')
        .send({ mode: 'live', _csrf: 'x'.repeat(43) });
      expect(wrong.status).toBe(403);
      expect(await livemodeOf(t, owner.email)).toEqual([false]);
      // The header works as the field does (htmx sends it).
      await owner.agent
        .post('/dashboard/mode')
        .set('X-CSRF-Token', owner.csrf)
        .type('form')
        .send({ mode: 'live' })
        .expect(303);
      expect(await livemodeOf(t, owner.email)).toEqual([true]);
    });

    it('a cross-site request is refused even with the right token; same-origin passes', async () => {
      const owner = await aDashboardOwner(t);
      for (const site of ['cross-site', 'same-site', 'none']) {
        const answer = await owner.agent
          .post('/dashboard/mode')
          .set('Sec-Fetch-Site', site)
          .type('form')
          .send({ _csrf: owner.csrf, mode: 'live' });
        expect(answer.status).toBe(403);
        expect(answer.text).toContain('came from another site');
      }
      expect(await livemodeOf(t, owner.email)).toEqual([false]);
      await owner.agent
        .post('/dashboard/mode')
        .set('Sec-Fetch-Site', 'same-origin')
        .type('form')
        .send({ _csrf: owner.csrf, mode: 'live' })
        .expect(303);
      expect(await livemodeOf(t, owner.email)).toEqual([true]);
    });

    it('sign-in and sign-up without the pre-session cookie token are refused', async () => {
      const owner = await aDashboardOwner(t);
      const bare = await t
        .http()
        .post('/dashboard/sign-in')
        .type('form')
        .send({ email: owner.email, password: owner.password, _csrf: 'a'.repeat(43) });
      expect(bare.status).toBe(403);
      expect(bare.headers['set-cookie'] ?? []).not.toEqual(
        expect.arrayContaining([expect.stringMatching(/lsvc_session/)]),
      );
      const agent = request.agent(t.app.getHttpServer());
      await csrfFrom(agent, '/dashboard/sign-up');
      const noField = await agent
        .post('/dashboard/sign-up')
        .type('form')
        .send({ email: 'nofield@example.se', password: STRONG_PASSWORD, company: 'X AB' });
      expect(noField.status).toBe(403);
      expect(
        await t.dataSource.query(`SELECT 1 FROM users WHERE email = 'nofield@example.se'`),
      ).toHaveLength(0);
    });
  });

  describe('roles and scoping', () => {
    it("a viewer's POST to a write is refused with 403 and does nothing; an owner's passes", async () => {
      const owner = await aDashboardOwner(t, { status: 'APPROVED' });
      const viewer = await aDashboardOwner(t);
      await addMember(t, viewer.email, owner.accountId, 'viewer');
      await viewer.agent
        .post('/dashboard/account')
        .type('form')
        .send({ _csrf: viewer.csrf, accountId: owner.accountId })
        .expect(303);
      const csrf = await csrfFrom(viewer.agent);
      const before = probeWrites().length;
      const refused = await viewer.agent
        .post('/dashboard/probe/write')
        .type('form')
        .send({ _csrf: csrf })
        .expect(403);
      expect(refused.text).toContain('Your role (viewer) cannot do this.');
      expect(probeWrites()).toHaveLength(before);
      await owner.agent
        .post('/dashboard/probe/write')
        .type('form')
        .send({ _csrf: owner.csrf })
        .expect(303);
      expect(probeWrites().at(-1)).toEqual({ accountId: owner.accountId, livemode: false });
    });

    it('an account switch rotates the session token: the old cookie stops working', async () => {
      const owner = await aDashboardOwner(t);
      const b = await aDashboardOwner(t);
      await addMember(t, owner.email, b.accountId, 'developer');
      const a = await signIn(t, owner.email, owner.password);
      const oldCookie = /lsvc_session=([A-Za-z0-9_-]{43})/.exec(
        String(a.response.headers['set-cookie']),
      );
      const before = await a.agent.get('/dashboard').expect(200);
      await a.agent
        .post('/dashboard/account')
        .type('form')
        .send({ _csrf: csrfOf(before.text), accountId: b.accountId })
        .expect(303);
      expect(oldCookie).not.toBeNull();
      const stale = await t.http().get('/dashboard').set('Cookie', `lsvc_session=${oldCookie![1]}`);
      expect(stale.status).toBe(303);
      await a.agent.get('/dashboard').expect(200);
    });
  });

  describe('session ends and redirects', () => {
    it('an idle session (8 h) sends to sign-in with next, and sign-in returns there', async () => {
      const owner = await aDashboardOwner(t);
      await t.dataSource.query(
        `UPDATE dashboard_sessions SET last_seen_at = now() - interval '8 hours 1 minute'
          WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
        [owner.email],
      );
      const answer = await owner.agent.get('/dashboard/probe/sensitive?kind=live').expect(303);
      expect(answer.headers.location).toBe(
        '/dashboard/sign-in?next=%2Fdashboard%2Fprobe%2Fsensitive%3Fkind%3Dlive&notice=session-ended',
      );
      const page = await owner.agent.get(answer.headers.location).expect(200);
      expect(page.text).toContain(
        '<input type="hidden" name="next" value="/dashboard/probe/sensitive?kind=live">',
      );
      expect(page.text).toContain('Your session ended. Sign in again to continue.');
      const back = await owner.agent
        .post('/dashboard/sign-in')
        .type('form')
        .send({
          _csrf: csrfOf(page.text),
          email: owner.email,
          password: owner.password,
          next: '/dashboard/probe/sensitive?kind=live',
        })
        .expect(303);
      expect(back.headers.location).toBe('/dashboard/probe/sensitive?kind=live');
    });

    it("an htmx request of an ended session loads sign-in whole, returning to the request's page", async () => {
      const owner = await aDashboardOwner(t);
      // Ended elsewhere (sign out everywhere in another browser): this cookie no longer opens it.
      await t.dataSource.query(
        `UPDATE dashboard_sessions SET revoked_at = now()
          WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
        [owner.email],
      );
      const poll = await owner.agent
        .get('/dashboard/imports/00000000-0000-4000-8000-000000000000/progress')
        .set('HX-Request', 'true')
        .set(
          'HX-Current-URL',
          'http://127.0.0.1/dashboard/imports/00000000-0000-4000-8000-000000000000',
        )
        .expect(204);
      expect(poll.headers['hx-redirect']).toBe(
        '/dashboard/sign-in?next=%2Fdashboard%2Fimports%2F00000000-0000-4000-8000-000000000000&notice=session-ended',
      );
      // A page elsewhere is never where sign-in returns to.
      const offsite = await owner.agent
        .get('/dashboard/imports')
        .set('HX-Request', 'true')
        .set('HX-Current-URL', 'https://evil.example//evil.example/x')
        .expect(204);
      expect(offsite.headers['hx-redirect']).toBe('/dashboard/sign-in?notice=session-ended');
    });

    it('a session older than 7 days ends, however active', async () => {
      const owner = await aDashboardOwner(t);
      await t.dataSource.query(
        `UPDATE dashboard_sessions SET created_at = now() - interval '7 days 1 minute'
          WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
        [owner.email],
      );
      expect((await owner.agent.get('/dashboard')).status).toBe(303);
    });

    it.each([
      '//evil.example/dashboard',
      'https://evil.example/dashboard',
      '/\\evil.example',
      '/dashboard//evil.example',
      '/dashboardx',
      '/v1/me',
      'javascript:alert(1)',
      '/dashboard/\\evil',
    ])('sign-in never follows next=%s off the dashboard', async (next) => {
      const owner = await aDashboardOwner(t);
      const page = await request(t.app.getHttpServer()).get(
        `/dashboard/sign-in?next=${encodeURIComponent(next)}`,
      );
      expect(page.text).not.toContain('name="next"');
      const { response } = await signIn(t, owner.email, owner.password);
      expect(response.headers.location).toBe('/dashboard');
      const agent = request.agent(t.app.getHttpServer());
      const csrf = await csrfFrom(agent, '/dashboard/sign-in');
      const answer = await agent
        .post('/dashboard/sign-in')
        .type('form')
        .send({ _csrf: csrf, email: owner.email, password: owner.password, next })
        .expect(303);
      expect(answer.headers.location).toBe('/dashboard');
    });

    it('sign out ends this session; sign out everywhere ends all of them', async () => {
      const owner = await aDashboardOwner(t);
      const second = await signIn(t, owner.email, owner.password);
      const third = await signIn(t, owner.email, owner.password);
      await owner.agent
        .post('/dashboard/sign-out')
        .type('form')
        .send({ _csrf: owner.csrf })
        .expect(303)
        .expect('Location', '/dashboard/sign-in?notice=signed-out');
      expect((await owner.agent.get('/dashboard')).status).toBe(303);
      await second.agent.get('/dashboard').expect(200);
      await second.agent
        .post('/dashboard/sign-out-everywhere')
        .type('form')
        .send({ _csrf: await csrfFrom(second.agent) })
        .expect(303);
      expect((await second.agent.get('/dashboard')).status).toBe(303);
      expect((await third.agent.get('/dashboard')).status).toBe(303);
    });

    it('a sensitive page asks for the password again after 10 minutes, then returns', async () => {
      const owner = await aDashboardOwner(t);
      // A fresh sign-in counts as a password entry.
      await owner.agent.get('/dashboard/probe/sensitive').expect(200);
      await t.dataSource.query(
        `UPDATE dashboard_sessions SET password_confirmed_at = now() - interval '11 minutes'
          WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
        [owner.email],
      );
      const ask = await owner.agent.get('/dashboard/probe/sensitive').expect(303);
      expect(ask.headers.location).toBe(
        '/dashboard/confirm-password?next=%2Fdashboard%2Fprobe%2Fsensitive',
      );
      const page = await owner.agent.get(ask.headers.location).expect(200);
      const wrong = await owner.agent
        .post('/dashboard/confirm-password')
        .type('form')
        .send({
          _csrf: csrfOf(page.text),
          password: 'not the password at all',
          next: '/dashboard/probe/sensitive',
        })
        .expect(200);
      expect(wrong.text).toContain('The password is not right.');
      const confirmed = await owner.agent
        .post('/dashboard/confirm-password')
        .type('form')
        .send({
          _csrf: csrfOf(page.text),
          password: owner.password,
          next: '/dashboard/probe/sensitive',
        })
        .expect(303)
        .expect('Location', '/dashboard/probe/sensitive');
      // What the session may do grew (live keys): it got a new token.
      expect(String(confirmed.headers['set-cookie'])).toMatch(/lsvc_session=/);
      await owner.agent.get('/dashboard/probe/sensitive').expect(200);
    });
  });
});
