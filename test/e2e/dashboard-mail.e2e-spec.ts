import { admin } from '../support/factories';
import request from 'supertest';
import { csrfFrom, csrfOf, signUp, uniqueEmail } from '../support/dashboard';
import { createTestApp, TestApp } from '../support/test-app';

describe('Mail outbox through the admin API, and invitation-only sign-up', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('GET /v1/admin/emails lists kept mail newest first, by recipient, with a cursor', async () => {
    const email = uniqueEmail('outbox');
    await signUp(t, { email });
    const up = await signUp(t);
    const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(
      (await up.agent.get('/dashboard/verify-email')).text,
    )![1];
    await up.agent.post('/dashboard/verify-email/resend').type('form').send({ _csrf: csrf });
    const mine = await admin(t).get(
      `/v1/admin/emails?to=${encodeURIComponent(email.toUpperCase())}`,
    );
    expect(mine.status).toBe(200);
    expect(mine.body.data).toHaveLength(1);
    expect(mine.body.data[0]).toEqual({
      id: expect.any(String),
      to: email,
      subject: 'Verify your email for the Listings Service dashboard',
      text: expect.stringContaining('/dashboard/verify-email?token='),
      createdAt: expect.any(String),
    });
    const theirs = await admin(t).get(
      `/v1/admin/emails?to=${encodeURIComponent(up.email)}&limit=1`,
    );
    expect(theirs.body.data).toHaveLength(1);
    const older = await admin(t).get(
      `/v1/admin/emails?to=${encodeURIComponent(up.email)}&limit=1&before=${theirs.body.data[0].id}`,
    );
    expect(older.body.data).toHaveLength(1);
    expect(Number(older.body.data[0].id)).toBeLessThan(Number(theirs.body.data[0].id));
  });

  it("mails an email at most 3 links of a kind an hour, the sign-up's own included", async () => {
    const up = await signUp(t);
    const csrf = csrfOf((await up.agent.get('/dashboard/verify-email')).text);
    const resent: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await up.agent
        .post('/dashboard/verify-email/resend')
        .type('form')
        .send({ _csrf: csrf })
        .expect(303);
      resent.push(res.headers.location);
    }
    expect(resent).toEqual([
      '/dashboard/verify-email?notice=verification-sent',
      '/dashboard/verify-email?notice=verification-sent',
      '/dashboard/verify-email?notice=verification-held',
    ]);
    const held = await up.agent.get(resent[2]).expect(200);
    expect(held.text).toContain('we did not send another');

    const anonymous = request.agent(t.app.getHttpServer());
    const anonymousCsrf = await csrfFrom(anonymous, '/dashboard/forgot-password');
    for (let i = 0; i < 4; i++)
      await anonymous
        .post('/dashboard/forgot-password')
        .type('form')
        .send({ _csrf: anonymousCsrf, email: up.email })
        .expect(303)
        .expect('Location', '/dashboard/sign-in?notice=reset-sent');
    const mails = await admin(t).get(
      `/v1/admin/emails?to=${encodeURIComponent(up.email)}&limit=100`,
    );
    const subjects = mails.body.data.map((m: { subject: string }) => m.subject);
    expect(subjects.filter((s: string) => s.startsWith('Verify your email'))).toHaveLength(3);
    expect(subjects.filter((s: string) => s.startsWith('Reset your'))).toHaveLength(3);
  });

  it('refuses without the admin token, and bad filters by name', async () => {
    expect((await t.http().get('/v1/admin/emails')).status).toBe(401);
    const bad = await admin(t).get('/v1/admin/emails?to=not-an-email&limit=0');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'limit',
      'to',
    ]);
  });

  it('DASHBOARD_SIGNUP=invite: only an invited email signs up, and joins the inviting account', async () => {
    const invite = await createTestApp({
      databaseName: t.databaseName,
      env: { DASHBOARD_SIGNUP: 'invite' },
    });
    try {
      const refused = await signUp(invite, { email: uniqueEmail('uninvited') });
      expect(refused.response.status).toBe(200);
      expect(refused.response.text).toContain('Sign-up is by invitation only');
      expect(refused.accountId).toBe('');
      // An invitation (the Members page makes them) lets the email in, into the inviting account.
      const inviter = await signUp(t);
      const email = uniqueEmail('invited');
      await t.dataSource.query(
        `INSERT INTO user_tokens (purpose, token_hash, email, account_id, role, expires_at)
         VALUES ('invitation', sha256(convert_to($1, 'UTF8')), $1, $2, 'developer',
                 now() + interval '7 days')`,
        [email, inviter.accountId],
      );
      const joined = await signUp(invite, { email, company: '' });
      expect(joined.response.status).toBe(303);
      expect(joined.accountId).toBe(inviter.accountId);
      const [membership] = await t.dataSource.query(
        `SELECT m.role, (SELECT count(*)::int FROM memberships WHERE user_id = u.id) AS n
           FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = $1`,
        [email],
      );
      expect(membership).toEqual({ role: 'developer', n: 1 });
    } finally {
      await invite.close();
    }
  });
});
