import { FormOnce } from '../../src/dashboard/web/form-once';
import type { DashboardContext } from '../../src/dashboard/web/dashboard-context';
import { admin, as } from '../support/factories';
import {
  aDashboardOwner,
  addMember,
  csrfFrom,
  DashboardUser,
  lastMailTo,
  signIn,
  STRONG_PASSWORD,
} from '../support/dashboard';
import { createTestApp, TestApp } from '../support/test-app';

const KEY_IN_PAGE = /<code id="new-key" class="secret">([^<]+)<\/code>/;
const formTokenOf = (html: string) => /name="formToken" value="([^"]+)"/.exec(html)![1];

/** The keys page's CSRF and form tokens. */
async function keysForm(user: DashboardUser) {
  const page = await user.agent.get('/dashboard/keys').expect(200);
  const csrf = /<meta name="csrf-token" content="([^"]*)">/.exec(page.text)![1];
  return { csrf, formToken: formTokenOf(page.text), page };
}

async function keyRows(t: TestApp, accountId: string) {
  return t.dataSource.query(
    `SELECT id, kind, name, scopes, created_by_user_id, revoked_at, expires_at FROM api_keys
      WHERE account_id = $1 ORDER BY created_at`,
    [accountId],
  ) as Promise<
    {
      id: string;
      kind: string;
      name: string;
      scopes: string[];
      created_by_user_id: string | null;
      revoked_at: Date | null;
      expires_at: Date | null;
    }[]
  >;
}

async function setMode(user: DashboardUser, mode: 'live' | 'test') {
  const csrf = await csrfFrom(user.agent);
  await user.agent.post('/dashboard/mode').type('form').send({ _csrf: csrf, mode }).expect(303);
}

describe('Dashboard: keys', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('explains that keys come after approval, with no form, while the account is pending', async () => {
    const owner = await aDashboardOwner(t);
    const page = await owner.agent.get('/dashboard/keys').expect(200);
    expect(page.text).toContain('once staff approve its access request');
    expect(page.text).toContain('href="/dashboard/access"');
    expect(page.text).not.toContain('Create key');
    expect(page.headers['cache-control']).toBe('no-store');
  });

  it('creates a test key shown once in the POST answer; a resubmit makes no second key', async () => {
    const owner = await aDashboardOwner(t, { status: 'APPROVED' });
    const { csrf, formToken } = await keysForm(owner);
    const form = {
      _csrf: csrf,
      formToken,
      name: 'Nightly sync',
      scopes: ['listings:read', 'account:read'],
    };
    const created = await owner.agent.post('/dashboard/keys').type('form').send(form).expect(200);
    expect(created.headers['cache-control']).toBe('no-store');
    const key = KEY_IN_PAGE.exec(created.text)![1];
    expect(key).toMatch(/^svc_test_/);
    expect(created.text).toContain('Copy key');

    const me = await as(t, key).get('/v1/me').expect(200);
    expect(me.body.data.livemode ?? me.body.data.key?.livemode).not.toBe(true);

    const again = await owner.agent.post('/dashboard/keys').type('form').send(form).expect(200);
    expect(again.text).toContain('This form was already used');
    expect(again.text).not.toContain(key);
    const rows = await keyRows(t, owner.accountId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kind: 'test',
      name: 'Nightly sync',
      scopes: ['listings:read', 'account:read'],
    });
    expect(rows[0].created_by_user_id).toEqual(expect.any(String));

    const list = await owner.agent.get('/dashboard/keys').expect(200);
    expect(list.text).toContain('Nightly sync');
    expect(list.text).toContain(owner.email);
    expect(list.text).not.toContain(key);
    const audit: { details: unknown }[] = await t.dataSource.query(
      `SELECT details FROM audit_log WHERE account_id = $1 AND action = 'key.created'`,
      [owner.accountId],
    );
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(key);
    // no live-key mail for a test key
    expect((await lastMailTo(t, owner.email)).subject).not.toContain('live');
  });

  it('re-renders bad input with field messages and makes nothing', async () => {
    const owner = await aDashboardOwner(t, { status: 'APPROVED' });
    const { csrf, formToken } = await keysForm(owner);
    const res = await owner.agent
      .post('/dashboard/keys')
      .type('form')
      .send({ _csrf: csrf, formToken, name: '' })
      .expect(200);
    expect(res.text).toContain('There is a problem');
    expect(res.text).toContain('id="name-error"');
    expect(res.text).toContain('id="scopes-error"');
    expect(res.text).toContain('aria-invalid="true"');
    expect(await keyRows(t, owner.accountId)).toHaveLength(0);
  });

  it('rolls a key (the new one shown once, the old one expiring) and revokes it: 401 at once', async () => {
    const owner = await aDashboardOwner(t, { status: 'APPROVED' });
    const { csrf, formToken } = await keysForm(owner);
    const created = await owner.agent
      .post('/dashboard/keys')
      .type('form')
      .send({ _csrf: csrf, formToken, name: 'Roll me', scopes: 'account:read' })
      .expect(200);
    const oldKey = KEY_IN_PAGE.exec(created.text)![1];
    const [{ id }] = await keyRows(t, owner.accountId);

    const rolled = await owner.agent
      .post(`/dashboard/keys/${id}/roll`)
      .type('form')
      .send({ _csrf: csrf, grace: '1h' })
      .expect(200);
    const newKey = KEY_IN_PAGE.exec(rolled.text)![1];
    expect(newKey).not.toBe(oldKey);
    expect(rolled.text).toContain('in 1 hour');
    const rows = await keyRows(t, owner.accountId);
    expect(rows).toHaveLength(2);
    expect(rows[0].expires_at).not.toBeNull();
    expect(rows[1]).toMatchObject({ name: 'Roll me', scopes: ['account:read'] });
    const list = await owner.agent.get('/dashboard/keys').expect(200);
    expect(list.text).toContain('Expiring');

    const bad = await owner.agent
      .post(`/dashboard/keys/${rows[1].id}/roll`)
      .type('form')
      .send({ _csrf: csrf, grace: '2d' })
      .expect(200);
    expect(bad.text).toContain('grace must be one of');
    // In the summary above the list, linked to this key's control, and beside it.
    const field = `grace-${rows[1].id}`;
    expect(bad.text).toContain(`<a href="#${field}">grace must be one of`);
    expect(bad.text).toContain(`<span class="field-error" id="${field}-error">`);
    expect(bad.text).toContain(`aria-describedby="${field}-error" aria-invalid="true"`);

    const confirm = await owner.agent.get(`/dashboard/keys/${rows[1].id}/revoke`).expect(200);
    expect(confirm.text).toContain('Revoke key');
    await as(t, newKey).get('/v1/me').expect(200);
    await owner.agent
      .post(`/dashboard/keys/${rows[1].id}/revoke`)
      .type('form')
      .send({ _csrf: csrf })
      .expect(303)
      .expect('Location', '/dashboard/keys?notice=key-revoked');
    await as(t, newKey).get('/v1/me').expect(401);
    const audit: { action: string }[] = await t.dataSource.query(
      `SELECT action FROM audit_log WHERE account_id = $1 AND action LIKE 'key.%' ORDER BY id`,
      [owner.accountId],
    );
    expect(audit.map((a) => a.action)).toEqual(['key.created', 'key.rolled', 'key.revoked']);
  });

  it("answers 404 for another account's key and for a key of the other mode", async () => {
    const owner = await aDashboardOwner(t, { status: 'APPROVED' });
    const other = await aDashboardOwner(t, { status: 'APPROVED' });
    const theirs = await admin(t)
      .post(`/v1/admin/accounts/${other.accountId}/keys`)
      .send({ kind: 'test' })
      .expect(201);
    const live = await admin(t)
      .post(`/v1/admin/accounts/${owner.accountId}/keys`)
      .send({ kind: 'live' })
      .expect(201);
    for (const id of [theirs.body.data.id, live.body.data.id, 'not-a-uuid']) {
      await owner.agent.get(`/dashboard/keys/${id}/revoke`).expect(404);
      await owner.agent
        .post(`/dashboard/keys/${id}/revoke`)
        .type('form')
        .send({ _csrf: owner.csrf })
        .expect(404);
    }
    const rows = await keyRows(t, other.accountId);
    expect(rows[0].revoked_at).toBeNull();
    // staff's keys say so
    await setMode(owner, 'live');
    expect((await owner.agent.get('/dashboard/keys').expect(200)).text).toContain('staff');
  });

  it('refuses a viewer (403) and a developer in live mode; a developer manages test keys', async () => {
    const owner = await aDashboardOwner(t, { status: 'APPROVED' });
    const viewer = await aDashboardOwner(t);
    const developer = await aDashboardOwner(t);
    await addMember(t, viewer.email, owner.accountId, 'viewer');
    await addMember(t, developer.email, owner.accountId, 'developer');
    for (const u of [viewer, developer]) {
      const csrf = await csrfFrom(u.agent);
      await u.agent
        .post('/dashboard/account')
        .type('form')
        .send({ _csrf: csrf, accountId: owner.accountId })
        .expect(303);
    }
    const viewerPage = await viewer.agent.get('/dashboard/keys').expect(200);
    expect(viewerPage.text).not.toContain('Create key');
    const vcsrf = await csrfFrom(viewer.agent, '/dashboard/keys');
    await viewer.agent
      .post('/dashboard/keys')
      .type('form')
      .send({ _csrf: vcsrf, name: 'x', scopes: 'account:read' })
      .expect(403);

    const devForm = await keysForm(developer);
    await developer.agent
      .post('/dashboard/keys')
      .type('form')
      .send({
        _csrf: devForm.csrf,
        formToken: devForm.formToken,
        name: 'Dev',
        scopes: 'account:read',
      })
      .expect(200);
    await setMode(developer, 'live');
    const livePage = await developer.agent.get('/dashboard/keys').expect(200);
    expect(livePage.text).toContain('Only an owner of the account creates and changes live keys');
    const dcsrf = await csrfFrom(developer.agent, '/dashboard/keys');
    await developer.agent
      .post('/dashboard/keys')
      .type('form')
      .send({ _csrf: dcsrf, name: 'Live', scopes: 'account:read' })
      .expect(403);
    const rows = await keyRows(t, owner.accountId);
    expect(rows.map((r) => r.kind)).toEqual(['test']);
  });

  it('live keys: an owner with a recent password creates one and the owners get a mail without it', async () => {
    const owner = await aDashboardOwner(t, { status: 'APPROVED' });
    await setMode(owner, 'live');
    // a password older than 10 minutes: sent to confirm it first, nothing made
    await t.dataSource.query(
      `UPDATE dashboard_sessions SET password_confirmed_at = now() - interval '11 minutes'
        WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
      [owner.email],
    );
    let form = await keysForm(owner);
    const stale = await owner.agent
      .post('/dashboard/keys')
      .type('form')
      .send({ _csrf: form.csrf, formToken: form.formToken, name: 'Prod', scopes: 'account:read' })
      .expect(303);
    expect(stale.headers.location).toContain('/dashboard/confirm-password');
    expect(await keyRows(t, owner.accountId)).toHaveLength(0);
    await owner.agent
      .post('/dashboard/confirm-password')
      .type('form')
      .send({ _csrf: form.csrf, password: STRONG_PASSWORD, next: '/dashboard/keys' })
      .expect(303);

    form = await keysForm(owner);
    const created = await owner.agent
      .post('/dashboard/keys')
      .type('form')
      .send({ _csrf: form.csrf, formToken: form.formToken, name: 'Prod', scopes: 'account:read' })
      .expect(200);
    const key = KEY_IN_PAGE.exec(created.text)![1];
    expect(key).toMatch(/^svc_live_/);
    const mail = await lastMailTo(t, owner.email);
    expect(mail.subject).toBe('A new live API key was created');
    expect(mail.text).toContain('"Prod"');
    expect(mail.text).not.toContain(key);
  });

  it('FormOnce: a token is consumed exactly once, even by two racing submits', async () => {
    const owner = await aDashboardOwner(t);
    const [{ id }]: { id: string }[] = await t.dataSource.query(
      `SELECT s.id FROM dashboard_sessions s JOIN users u ON u.id = s.user_id
        WHERE u.email = $1 AND s.revoked_at IS NULL LIMIT 1`,
      [owner.email],
    );
    const ctx = { session: { id } } as unknown as DashboardContext;
    const once = t.app.get(FormOnce);
    const token = await once.issue(ctx);
    const results = await Promise.all([once.consume(ctx, token), once.consume(ctx, token)]);
    expect(results.sort()).toEqual([false, true]);
    expect(await once.consume(ctx, token)).toBe(false);
    expect(await once.consume(ctx, 'x'.repeat(43))).toBe(false);
    const other = {
      session: { id: '00000000-0000-0000-0000-000000000000' },
    } as unknown as DashboardContext;
    const second = await once.issue(ctx);
    expect(await once.consume(other, second)).toBe(false);
    expect(await once.consume(ctx, second)).toBe(true);
  });

  it('signs in again fine (smoke)', async () => {
    const owner = await aDashboardOwner(t);
    const { response } = await signIn(t, owner.email, owner.password);
    expect(response.status).toBe(303);
  });
});
