import request from 'supertest';
import {
  aDashboardOwner,
  addMember,
  csrfFrom,
  csrfOf,
  type DashboardUser,
  lastMailTo,
  linkToken,
  signUp,
  uniqueEmail,
} from '../support/dashboard';
import { admin, as, createKey } from '../support/factories';
import { aListing } from '../support/listing-builder';
import { createTestApp, TestApp } from '../support/test-app';

const userIdOf = async (t: TestApp, email: string): Promise<string> =>
  (await t.dataSource.query(`SELECT id FROM users WHERE email = $1`, [email.toLowerCase()]))[0].id;

const roleOf = async (t: TestApp, email: string, accountId: string): Promise<string | undefined> =>
  (
    await t.dataSource.query(
      `SELECT m.role FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE u.email = $1 AND m.account_id = $2`,
      [email.toLowerCase(), accountId],
    )
  )[0]?.role;

const auditOf = async (t: TestApp, accountId: string, action: string) =>
  t.dataSource.query(`SELECT * FROM audit_log WHERE account_id = $1 AND action = $2 ORDER BY id`, [
    accountId,
    action,
  ]);

/** A verified, signed-in member of `accountId` with a role (signed up on their own first). */
async function aMember(
  t: TestApp,
  owner: DashboardUser,
  role: 'owner' | 'developer' | 'viewer',
): Promise<DashboardUser & { userId: string }> {
  const other = await aDashboardOwner(t);
  await addMember(t, other.email, owner.accountId, role);
  // Move the session to the owner's account.
  await other.agent
    .post('/dashboard/account')
    .type('form')
    .send({ _csrf: other.csrf, accountId: owner.accountId })
    .expect(303);
  return {
    ...other,
    accountId: owner.accountId,
    csrf: await csrfFrom(other.agent),
    userId: await userIdOf(t, other.email),
  };
}

describe('Dashboard: Members, Sandbox and Security log', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  describe('Members', () => {
    it('invite → mail → sign-up joins the account in the role; pending list and audit row', async () => {
      const owner = await aDashboardOwner(t, { status: 'APPROVED' });
      const email = uniqueEmail('invitee');
      const sent = await owner.agent
        .post('/dashboard/members/invitations')
        .type('form')
        .send({ _csrf: owner.csrf, email: email.toUpperCase(), role: 'developer' });
      expect(sent.status).toBe(303);
      expect(sent.headers.location).toBe('/dashboard/members?done=invited');
      const page = await owner.agent.get('/dashboard/members?done=invited').expect(200);
      expect(page.text).toContain('The invitation is sent.');
      expect(page.text).toContain('Pending invitations');
      expect(page.text).toContain(email);
      const mail = await lastMailTo(t, email);
      expect(mail.subject).toContain('You are invited to');
      expect(mail.text).toContain('/dashboard/sign-up');
      expect(linkToken(mail.text, 'invitation')).toMatch(/^[A-Za-z0-9_-]+$/);
      const [row] = await auditOf(t, owner.accountId, 'member.invited');
      expect(row).toMatchObject({ actor_type: 'user', details: { email, role: 'developer' } });
      expect(JSON.stringify(row)).not.toContain(linkToken(mail.text, 'invitation'));

      const up = await signUp(t, { email, company: '' });
      expect(up.response.status).toBe(303);
      expect(up.accountId).toBe(owner.accountId);
      expect(await roleOf(t, email, owner.accountId)).toBe('developer');
      const after = await owner.agent.get('/dashboard/members').expect(200);
      expect(after.text).toContain('No invitations are waiting.');
      expect(after.text).toMatch(
        new RegExp(`${email.replace(/[.]/g, '\\.')}</td>\\s*<td>developer`),
      );
    });

    it('an existing user accepts the link while signed in and lands in the account', async () => {
      const owner = await aDashboardOwner(t, { status: 'APPROVED' });
      const other = await aDashboardOwner(t);
      await owner.agent
        .post('/dashboard/members/invitations')
        .type('form')
        .send({ _csrf: owner.csrf, email: other.email, role: 'viewer' })
        .expect(303);
      const token = linkToken((await lastMailTo(t, other.email)).text, 'invitation');
      const stranger = await aDashboardOwner(t);
      const wrong = await stranger.agent.get(`/dashboard/invitation?token=${token}`).expect(200);
      expect(wrong.text).toContain('meant for another email address');
      const page = await other.agent.get(`/dashboard/invitation?token=${token}`).expect(200);
      expect(page.text).toContain('Accept invitation');
      const accepted = await other.agent
        .post('/dashboard/invitation')
        .type('form')
        .send({ _csrf: csrfOf(page.text), token });
      expect(accepted.status).toBe(303);
      expect(await roleOf(t, other.email, owner.accountId)).toBe('viewer');
      const overview = await other.agent.get('/dashboard').expect(200);
      expect(overview.text).toMatch(/Your role<\/dt><dd>viewer/);
      // Used once.
      const again = await other.agent.get(`/dashboard/invitation?token=${token}`).expect(200);
      expect(again.text).toContain('has expired, was already used');
    });

    it('bad input re-renders with the field messages; an existing member is refused', async () => {
      const owner = await aDashboardOwner(t);
      const bad = await owner.agent
        .post('/dashboard/members/invitations')
        .type('form')
        .send({ _csrf: owner.csrf, email: 'not-an-email', role: 'boss' })
        .expect(200);
      expect(bad.text).toContain('There is a problem');
      expect(bad.text).toContain('Enter an email address like name@example.se.');
      expect(bad.text).toContain('Choose a role.');
      expect(bad.text).toContain('aria-invalid="true"');
      const dup = await owner.agent
        .post('/dashboard/members/invitations')
        .type('form')
        .send({ _csrf: owner.csrf, email: owner.email, role: 'viewer' })
        .expect(200);
      expect(dup.text).toContain('This person is already a member.');
    });

    it('revokes a pending invitation; a foreign invitation id is a 404', async () => {
      const owner = await aDashboardOwner(t);
      const email = uniqueEmail('revoked');
      await owner.agent
        .post('/dashboard/members/invitations')
        .type('form')
        .send({ _csrf: owner.csrf, email, role: 'viewer' })
        .expect(303);
      const [{ id }] = await t.dataSource.query(
        `SELECT id FROM user_tokens WHERE email = $1 AND purpose = 'invitation'`,
        [email],
      );
      const stranger = await aDashboardOwner(t);
      await stranger.agent
        .post(`/dashboard/members/invitations/${id}/revoke`)
        .type('form')
        .send({ _csrf: stranger.csrf })
        .expect(404);
      await owner.agent
        .post(`/dashboard/members/invitations/${id}/revoke`)
        .type('form')
        .send({ _csrf: owner.csrf })
        .expect(303);
      const page = await owner.agent.get('/dashboard/members').expect(200);
      expect(page.text).toContain('No invitations are waiting.');
      // Sign-up no longer joins.
      const up = await signUp(t, { email, company: 'Eget AB' });
      expect(up.accountId).not.toBe(owner.accountId);
    });

    it("changes a role (audited); changing one's own role rotates the session", async () => {
      const owner = await aDashboardOwner(t);
      const dev = await aMember(t, owner, 'developer');
      await owner.agent
        .post(`/dashboard/members/${dev.userId}/role`)
        .type('form')
        .send({ _csrf: owner.csrf, role: 'viewer' })
        .expect(303);
      expect(await roleOf(t, dev.email, owner.accountId)).toBe('viewer');
      const [row] = await auditOf(t, owner.accountId, 'member.changed');
      expect(row).toMatchObject({
        target: `user:${dev.userId}`,
        details: { from: 'developer', to: 'viewer', sessionsEnded: 1 },
      });
      // A privilege change: the member's session in the account ended; they sign in again.
      await dev.agent.get('/dashboard/members').expect(303);

      // Make the developer an owner, then the owner demotes themself: a new session cookie.
      await owner.agent
        .post(`/dashboard/members/${dev.userId}/role`)
        .type('form')
        .send({ _csrf: owner.csrf, role: 'owner' })
        .expect(303);
      const me = await userIdOf(t, owner.email);
      const demoted = await owner.agent
        .post(`/dashboard/members/${me}/role`)
        .type('form')
        .send({ _csrf: owner.csrf, role: 'developer' })
        .expect(303);
      expect(String(demoted.headers['set-cookie'])).toMatch(/lsvc_session=/);
      expect(await roleOf(t, owner.email, owner.accountId)).toBe('developer');
      // The old CSRF token was rotated away.
      await owner.agent
        .post('/dashboard/members/invitations')
        .type('form')
        .send({ _csrf: owner.csrf, email: uniqueEmail(), role: 'viewer' })
        .expect(403);
    });

    it('the last owner can be neither demoted nor removed (a form error, nothing changed)', async () => {
      const owner = await aDashboardOwner(t);
      const me = await userIdOf(t, owner.email);
      const demote = await owner.agent
        .post(`/dashboard/members/${me}/role`)
        .type('form')
        .send({ _csrf: owner.csrf, role: 'viewer' })
        .expect(200);
      expect(demote.text).toContain('An account needs at least one owner.');
      expect(demote.text).toContain(`href="#role-${me}"`);
      const leave = await owner.agent
        .post(`/dashboard/members/${me}/remove`)
        .type('form')
        .send({ _csrf: owner.csrf })
        .expect(200);
      expect(leave.text).toContain('An account needs at least one owner.');
      expect(await roleOf(t, owner.email, owner.accountId)).toBe('owner');
      expect(await auditOf(t, owner.accountId, 'member.changed')).toHaveLength(0);
    });

    it('removing a member ends their access to the account (audited)', async () => {
      const owner = await aDashboardOwner(t);
      const dev = await aMember(t, owner, 'developer');
      await dev.agent.get('/dashboard/members').expect(200);
      await owner.agent
        .post(`/dashboard/members/${dev.userId}/remove`)
        .type('form')
        .send({ _csrf: owner.csrf })
        .expect(303);
      expect(await roleOf(t, dev.email, owner.accountId)).toBeUndefined();
      const next = await dev.agent.get('/dashboard/members');
      expect(next.status).toBe(303);
      expect(next.headers.location).toMatch(/^\/dashboard\/sign-in/);
      const [row] = await auditOf(t, owner.accountId, 'member.removed');
      expect(row).toMatchObject({ target: `user:${dev.userId}`, details: { sessionsEnded: 1 } });
      const page = await owner.agent.get('/dashboard/members').expect(200);
      expect(page.text).not.toContain(dev.email);
    });

    it('a foreign member id is a 404; a viewer sees the list but no forms, and POSTs get 403', async () => {
      const owner = await aDashboardOwner(t);
      const stranger = await aDashboardOwner(t);
      const strangerId = await userIdOf(t, stranger.email);
      await owner.agent
        .post(`/dashboard/members/${strangerId}/remove`)
        .type('form')
        .send({ _csrf: owner.csrf })
        .expect(404);
      await owner.agent
        .post(`/dashboard/members/not-a-uuid/role`)
        .type('form')
        .send({ _csrf: owner.csrf, role: 'viewer' })
        .expect(404);
      const viewer = await aMember(t, owner, 'viewer');
      const page = await viewer.agent.get('/dashboard/members').expect(200);
      expect(page.text).toContain(owner.email);
      expect(page.text).not.toContain('Send invitation');
      expect(page.text).not.toContain('Change role');
      const ownerId = await userIdOf(t, owner.email);
      for (const [path, body] of [
        ['/dashboard/members/invitations', { email: uniqueEmail(), role: 'owner' }],
        [`/dashboard/members/${viewer.userId}/role`, { role: 'owner' }],
        [`/dashboard/members/${ownerId}/remove`, {}],
      ] as const) {
        await viewer.agent
          .post(path)
          .type('form')
          .send({ _csrf: viewer.csrf, ...body })
          .expect(403);
      }
      expect(await roleOf(t, viewer.email, owner.accountId)).toBe('viewer');
    });
  });

  describe('Sandbox', () => {
    const setUp = async () => {
      const owner = await aDashboardOwner(t, { status: 'APPROVED' });
      const testKey = await createKey(t, owner.accountId, { kind: 'test' });
      const liveKey = await createKey(t, owner.accountId, { kind: 'live' });
      const draft = (await as(t, testKey).post('/v1/listings').send(aListing().build()).expect(201))
        .body.data;
      const live = (await as(t, liveKey).post('/v1/listings').send(aListing().build()).expect(201))
        .body.data;
      // Sessions start in test mode.
      return { owner, draft, live };
    };
    const act = (user: DashboardUser, id: string, action: string, body = {}) =>
      user.agent
        .post(`/dashboard/sandbox/listings/${id}/${action}`)
        .type('form')
        .send({ _csrf: user.csrf, ...body });

    it('lists the test listings and runs publish, message, favourite, expire with their events', async () => {
      const { owner, draft, live } = await setUp();
      const page = await owner.agent.get('/dashboard/sandbox').expect(200);
      expect(page.text).toContain('Test listings');
      expect(page.text).toContain(`/dashboard/sandbox/listings/${draft.id}/publish`);
      expect(page.text).not.toContain(live.id);

      const published = await act(owner, draft.id, 'publish').expect(200);
      expect(published.text).toMatch(/role="status"[\s\S]*is now <strong>ACTIVE<\/strong>/);
      expect(published.text).toContain('<code>listing.updated</code> was queued');
      const message = await act(owner, draft.id, 'message', { preview: 'Finns den kvar?' }).expect(
        200,
      );
      expect(message.text).toContain('<code>message.received</code> was queued');
      const fav = await act(owner, draft.id, 'favourite').expect(200);
      expect(fav.text).toContain('<code>listing.favorited</code> was queued');
      const expired = await act(owner, draft.id, 'expire').expect(200);
      expect(expired.text).toContain('is now <strong>EXPIRED</strong>');
      const events: { event: string }[] = await t.dataSource.query(
        `SELECT event FROM outbox_events WHERE account_id = $1 ORDER BY seq`,
        [owner.accountId],
      );
      expect(events.map((e) => e.event)).toEqual(
        expect.arrayContaining([
          'listing.updated',
          'message.received',
          'listing.favorited',
          'listing.expired',
        ]),
      );
      const api = await as(t, await createKey(t, owner.accountId, { kind: 'test' }))
        .get(`/v1/listings/${draft.id}`)
        .expect(200);
      expect(api.body.data.status).toBe('EXPIRED');
    });

    it('a wrong state is shown as refused; bad message input re-renders with the field message', async () => {
      const { owner, draft } = await setUp();
      const refused = await act(owner, draft.id, 'expire').expect(200);
      expect(refused.text).toContain('refused. Cannot expire a listing in state DRAFT.');
      await act(owner, draft.id, 'publish').expect(200);
      const bad = await act(owner, draft.id, 'message', { preview: 'x'.repeat(501) }).expect(200);
      expect(bad.text).toContain('There is a problem');
      expect(bad.text).toContain('id="preview-error"');
    });

    it("refuses live listings, other accounts' listings and live mode (404); viewers 403", async () => {
      const { owner, draft, live } = await setUp();
      await act(owner, live.id, 'publish').expect(404);
      const stranger = await aDashboardOwner(t);
      await act(stranger, draft.id, 'publish').expect(404);
      await act(owner, 'not-a-uuid', 'publish').expect(404);
      await act(owner, draft.id, 'explode').expect(404);
      const viewer = await aMember(t, owner, 'viewer');
      const page = await viewer.agent.get(`/dashboard/sandbox?listing=${draft.id}`).expect(200);
      expect(page.text).not.toContain('<button type="submit">Publish</button>');
      await act(viewer, draft.id, 'publish').expect(403);
      await owner.agent
        .post('/dashboard/mode')
        .type('form')
        .send({ _csrf: owner.csrf, mode: 'live', next: '/dashboard/sandbox' })
        .expect(303);
      const livePage = await owner.agent.get('/dashboard/sandbox').expect(200);
      expect(livePage.text).toContain('Switch to test mode');
      expect(livePage.text).not.toContain(draft.id);
      await act(owner, draft.id, 'publish').expect(404);
      const api = await as(t, await createKey(t, owner.accountId, { kind: 'test' }))
        .get(`/v1/listings/${draft.id}`)
        .expect(200);
      expect(api.body.data.status).toBe('DRAFT');
    });
  });

  describe('Security log', () => {
    it('shows rows from several doors with actors in words, newest first', async () => {
      const owner = await aDashboardOwner(t, { status: 'APPROVED' });
      await admin(t)
        .post(`/v1/admin/accounts/${owner.accountId}/keys`)
        .send({ kind: 'test', name: 'From staff' })
        .expect(201);
      const elsewhere = request.agent(t.app.getHttpServer());
      const elsewhereCsrf = await csrfFrom(elsewhere, '/dashboard/sign-in');
      await elsewhere
        .post('/dashboard/sign-in')
        .set('User-Agent', 'Granskaren/2.0')
        .type('form')
        .send({
          _csrf: elsewhereCsrf,
          email: owner.email,
          password: 'not the password at all',
        })
        .expect(200);
      const page = await owner.agent.get('/dashboard/security').expect(200);
      expect(page.text).toContain('<th scope="col">Browser</th>');
      expect(page.text).toContain('<td class="user-agent">Granskaren/2.0</td>');
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.text).toContain('Signed in');
      expect(page.text).toContain('API key created');
      expect(page.text).toMatch(/<td>staff<\/td><td>API key created/);
      expect(page.text).toContain(`<td>${owner.email}</td><td>Signed in`);
      expect(page.text.indexOf('API key created')).toBeLessThan(page.text.indexOf('Signed in'));
      expect(page.text).toContain('Sign out everywhere');
      expect(page.text).toContain('href="/dashboard/password"');
      await owner.agent.get('/dashboard/security-log').expect(200);
    });

    it("pages with Older and Newer links; viewers read it; another account's rows never show", async () => {
      const owner = await aDashboardOwner(t, { status: 'APPROVED' });
      for (let i = 0; i < 27; i++)
        await t.dataSource.query(
          `INSERT INTO audit_log (account_id, actor_type, action, target) VALUES ($1, 'cli', 'key.revoked', $2)`,
          [owner.accountId, `key:${i}`],
        );
      const first = await owner.agent.get('/dashboard/security').expect(200);
      expect(first.text).toContain('<td>CLI</td>');
      expect(first.text).toContain('key:26');
      expect(first.text).not.toContain('>Newer<');
      const older = /href="\/dashboard\/security\?before=(\d+)" rel="next">Older/.exec(first.text);
      expect(older).not.toBeNull();
      const second = await owner.agent.get(`/dashboard/security?before=${older![1]}`).expect(200);
      expect(second.text).not.toContain('key:26<');
      expect(second.text).toContain('key:1<');
      expect(second.text).toContain('href="/dashboard/security" rel="prev">Newer');
      const viewer = await aMember(t, owner, 'viewer');
      const seen = await viewer.agent.get('/dashboard/security').expect(200);
      expect(seen.text).toContain('key:26');
      const stranger = await aDashboardOwner(t);
      const theirs = await stranger.agent.get('/dashboard/security').expect(200);
      expect(theirs.text).not.toContain('key:26');
    });
  });

  it('a POST without the CSRF token is refused on every page', async () => {
    const owner = await aDashboardOwner(t);
    await owner.agent
      .post('/dashboard/members/invitations')
      .type('form')
      .send({ email: uniqueEmail(), role: 'viewer' })
      .expect(403);
    const fresh = request.agent(t.app.getHttpServer());
    const res = await fresh.get('/dashboard/security');
    expect(res.status).toBe(303);
  });
});
