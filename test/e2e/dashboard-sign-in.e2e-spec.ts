import request from 'supertest';
import {
  aDashboardOwner,
  csrfFrom,
  csrfOf,
  lastMailTo,
  linkToken,
  signIn,
  STRONG_PASSWORD,
  uniqueEmail,
} from '../support/dashboard';
import { createTestApp, TestApp } from '../support/test-app';

const NEW_PASSWORD = 'quiet lantern orchard 77 saffron';

/** A sign-in page's text without what differs per request (its CSRF tokens). */
const comparable = (html: string) => html.replace(/[A-Za-z0-9_-]{43}/g, 'TOKEN');

describe('Dashboard: sign-in throttling, lockout, identical refusals, password reset and change', () => {
  let t: TestApp;
  let address = 0;
  /** A fresh client address per call (TRUST_PROXY=1: X-Forwarded-For is the client). */
  const nextIp = () => `198.51.100.${++address}`;

  beforeAll(async () => {
    t = await createTestApp({ env: { TRUST_PROXY: '1' } });
  });
  afterAll(() => t.close());

  const attempt = (email: string, password: string, ip: string) =>
    signIn(t, email, password, request.agent(t.app.getHttpServer()), { 'X-Forwarded-For': ip });

  it('an unknown email and a wrong password get the same answer', async () => {
    const owner = await aDashboardOwner(t);
    const ip = nextIp();
    const unknown = await attempt(uniqueEmail('nobody'), 'wrong password here 1', ip);
    const wrong = await attempt(owner.email, 'wrong password here 1', ip);
    expect(unknown.response.status).toBe(200);
    expect(wrong.response.status).toBe(200);
    expect(wrong.response.text).toContain('The email or password is not right.');
    // Same page but for the email typed back into the form.
    expect(comparable(unknown.response.text.replace(/value="[^"]*@example\.se"/, ''))).toBe(
      comparable(wrong.response.text.replace(/value="[^"]*@example\.se"/, '')),
    );
    expect(Object.keys(unknown.response.headers).sort()).toEqual(
      Object.keys(wrong.response.headers).sort(),
    );
  });

  it('5 failures a minute for one email from one address: the 6th is 429, even with the right password', async () => {
    const owner = await aDashboardOwner(t);
    const ip = nextIp();
    for (let i = 0; i < 5; i++)
      expect((await attempt(owner.email, `wrong password ${i} x`, ip)).response.status).toBe(200);
    const blocked = await attempt(owner.email, owner.password, ip);
    expect(blocked.response.status).toBe(429);
    expect(blocked.response.headers['content-type']).toMatch(/^text\/html/);
    expect(blocked.response.headers['retry-after']).toBe('60');
    expect(blocked.response.text).toContain('Too many sign-in attempts');
    // Another address is not held back.
    expect((await attempt(owner.email, owner.password, nextIp())).response.status).toBe(303);
  });

  it('20 failures a minute from one address, whatever the emails: the 21st is 429', async () => {
    const ip = nextIp();
    for (let i = 0; i < 20; i++)
      expect((await attempt(uniqueEmail('spray'), 'some wrong password', ip)).response.status).toBe(
        200,
      );
    const owner = await aDashboardOwner(t);
    expect((await attempt(owner.email, owner.password, ip)).response.status).toBe(429);
  });

  it('IPv6 addresses count per /64', async () => {
    const owner = await aDashboardOwner(t);
    for (let i = 1; i <= 5; i++)
      await attempt(owner.email, 'wrong password v6', `2001:db8:77:1::${i.toString(16)}`);
    expect(
      (await attempt(owner.email, owner.password, '2001:db8:77:1:ffff::9')).response.status,
    ).toBe(429);
    expect((await attempt(owner.email, owner.password, '2001:db8:77:2::1')).response.status).toBe(
      303,
    );
  });

  it('10 wrong passwords in a row lock the user for 15 minutes, in PostgreSQL, and mail them', async () => {
    const owner = await aDashboardOwner(t);
    for (let i = 0; i < 10; i++)
      expect((await attempt(owner.email, `wrong password ${i} y`, nextIp())).response.status).toBe(
        200,
      );
    const [user] = await t.dataSource.query(
      `SELECT locked_until - now() AS remaining, failed_sign_ins FROM users WHERE email = $1`,
      [owner.email],
    );
    expect(user.remaining.minutes).toBeGreaterThanOrEqual(14);
    const refused = await attempt(owner.email, owner.password, nextIp());
    expect(refused.response.status).toBe(200);
    expect(refused.response.text).toContain('The email or password is not right.');
    expect(refused.response.headers['set-cookie'] ?? []).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/lsvc_session/)]),
    );
    const mail = await lastMailTo(t, owner.email);
    expect(mail.subject).toMatch(/locked for 15 minutes/);
    // Once the lock has passed, the right password works again.
    await t.dataSource.query(
      `UPDATE users SET locked_until = now() - interval '1 second' WHERE email = $1`,
      [owner.email],
    );
    expect((await attempt(owner.email, owner.password, nextIp())).response.status).toBe(303);
  });

  it('a successful sign-in starts the count of failures in a row again', async () => {
    const owner = await aDashboardOwner(t);
    for (let i = 0; i < 9; i++) await attempt(owner.email, `wrong password ${i} z`, nextIp());
    expect((await attempt(owner.email, owner.password, nextIp())).response.status).toBe(303);
    await attempt(owner.email, 'wrong password again', nextIp());
    const [user] = await t.dataSource.query(
      `SELECT failed_sign_ins, locked_until FROM users WHERE email = $1`,
      [owner.email],
    );
    expect(user).toEqual({ failed_sign_ins: 1, locked_until: null });
  });

  it('a password reset by mail link (once) ends every session', async () => {
    const owner = await aDashboardOwner(t);
    const elsewhere = await signIn(t, owner.email, owner.password);
    const agent = request.agent(t.app.getHttpServer());
    const csrf = await csrfFrom(agent, '/dashboard/forgot-password');
    await agent
      .post('/dashboard/forgot-password')
      .type('form')
      .send({ _csrf: csrf, email: owner.email.toUpperCase() })
      .expect(303)
      .expect('Location', '/dashboard/sign-in?notice=reset-sent');
    const mail = await lastMailTo(t, owner.email);
    expect(mail.subject).toMatch(/Reset your/);
    const token = linkToken(mail.text, 'reset-password');
    const page = await agent.get(`/dashboard/reset-password?token=${token}`).expect(200);
    const weak = await agent
      .post('/dashboard/reset-password')
      .type('form')
      .send({ _csrf: csrfOf(page.text), token, password: 'password' });
    expect(weak.status).toBe(200);
    expect(weak.text).toContain('Use at least 12 characters.');
    await agent
      .post('/dashboard/reset-password')
      .type('form')
      .send({ _csrf: csrfOf(page.text), token, password: NEW_PASSWORD })
      .expect(303)
      .expect('Location', '/dashboard/sign-in?notice=password-reset');
    expect((await owner.agent.get('/dashboard')).status).toBe(303);
    expect((await elsewhere.agent.get('/dashboard')).status).toBe(303);
    const audited = await t.dataSource.query(
      `SELECT details FROM audit_log WHERE account_id = $1 AND action = 'password.reset'`,
      [owner.accountId],
    );
    // The sign-up's session, the helper's sign-in and the one elsewhere.
    expect(audited).toEqual([{ details: { sessionsEnded: 3 } }]);
    const again = await agent
      .post('/dashboard/reset-password')
      .type('form')
      .send({ _csrf: csrfOf(page.text), token, password: 'another fine password 99 x' });
    expect(again.status).toBe(400);
    expect((await attempt(owner.email, owner.password, nextIp())).response.status).toBe(200);
    expect((await attempt(owner.email, NEW_PASSWORD, nextIp())).response.status).toBe(303);
  });

  it('a reset link expires after an hour', async () => {
    const owner = await aDashboardOwner(t);
    const agent = request.agent(t.app.getHttpServer());
    const csrf = await csrfFrom(agent, '/dashboard/forgot-password');
    await agent
      .post('/dashboard/forgot-password')
      .type('form')
      .send({ _csrf: csrf, email: owner.email })
      .expect(303);
    const token = linkToken((await lastMailTo(t, owner.email)).text, 'reset-password');
    await t.dataSource.query(
      `UPDATE user_tokens SET expires_at = created_at + interval '1 hour'
        WHERE purpose = 'reset_password' AND email = $1`,
      [owner.email],
    );
    const [ttl] = await t.dataSource.query(
      `SELECT extract(epoch FROM expires_at - created_at)::int AS s FROM user_tokens
        WHERE purpose = 'reset_password' AND email = $1`,
      [owner.email],
    );
    expect(ttl.s).toBe(3600);
    await t.dataSource.query(
      `UPDATE user_tokens SET expires_at = now() - interval '1 second'
        WHERE purpose = 'reset_password' AND email = $1`,
      [owner.email],
    );
    const page = await agent.get(`/dashboard/reset-password?token=${token}`);
    expect(page.status).toBe(400);
    expect(page.text).toContain('expired or was already used');
  });

  it('asking a reset for an unknown email answers the same and mails nothing', async () => {
    const agent = request.agent(t.app.getHttpServer());
    const email = uniqueEmail('ghost');
    const csrf = await csrfFrom(agent, '/dashboard/forgot-password');
    await agent
      .post('/dashboard/forgot-password')
      .type('form')
      .send({ _csrf: csrf, email })
      .expect(303)
      .expect('Location', '/dashboard/sign-in?notice=reset-sent');
    await expect(lastMailTo(t, email)).rejects.toThrow('No mail');
  });

  it('a password change needs the current password and ends the other sessions, not this one', async () => {
    const owner = await aDashboardOwner(t);
    const elsewhere = await signIn(t, owner.email, owner.password);
    const page = await owner.agent.get('/dashboard/password').expect(200);
    const wrong = await owner.agent
      .post('/dashboard/password')
      .type('form')
      .send({
        _csrf: csrfOf(page.text),
        currentPassword: 'not my password at all',
        newPassword: NEW_PASSWORD,
      });
    expect(wrong.status).toBe(200);
    expect(wrong.text).toContain('The current password is not right.');
    expect(wrong.text).toMatch(/<a href="#currentPassword">/);
    await owner.agent
      .post('/dashboard/password')
      .type('form')
      .send({
        _csrf: csrfOf(page.text),
        currentPassword: STRONG_PASSWORD,
        newPassword: NEW_PASSWORD,
      })
      .expect(303);
    await owner.agent.get('/dashboard').expect(200);
    expect((await elsewhere.agent.get('/dashboard')).status).toBe(303);
    expect((await attempt(owner.email, NEW_PASSWORD, nextIp())).response.status).toBe(303);
  });

  it('sign-ins, failures, the lock and password changes are in the audit log, without secrets', async () => {
    const owner = await aDashboardOwner(t);
    const ip = nextIp();
    await attempt(owner.email, 'a wrong password here', ip);
    for (let i = 0; i < 9; i++) await attempt(owner.email, `wrong password ${i} w`, nextIp());
    const unknownEmail = uniqueEmail('unknown');
    await attempt(unknownEmail, 'whatever password 1', ip);
    const rows: {
      action: string;
      account_id: string | null;
      actor_id: string | null;
      ip: string;
      details: object;
      target: string | null;
    }[] = await t.dataSource.query(
      `SELECT action, account_id, actor_id, ip, details, target FROM audit_log
          WHERE account_id = $1 OR (account_id IS NULL AND ip = $2) ORDER BY id`,
      [owner.accountId, ip],
    );
    const actions = rows.map((r) => r.action);
    expect(actions.filter((a) => a === 'sign_in.succeeded')).toHaveLength(1);
    expect(actions.filter((a) => a === 'sign_in.failed')).toHaveLength(11);
    expect(actions.filter((a) => a === 'sign_in.locked')).toHaveLength(1);
    const anonymous = rows.find((r) => r.account_id === null)!;
    expect(anonymous).toMatchObject({ action: 'sign_in.failed', actor_id: null, target: null });
    const text = JSON.stringify(rows);
    expect(text).not.toContain('wrong password');
    expect(text).not.toContain(unknownEmail);
  });

  it('a password change is audited in its transaction', async () => {
    const owner = await aDashboardOwner(t);
    const page = await owner.agent.get('/dashboard/password').expect(200);
    await owner.agent
      .post('/dashboard/password')
      .set('User-Agent', 'audit-test-agent')
      .type('form')
      .send({
        _csrf: csrfOf(page.text),
        currentPassword: STRONG_PASSWORD,
        newPassword: NEW_PASSWORD,
      })
      .expect(303);
    const rows = await t.dataSource.query(
      `SELECT action, user_agent, details FROM audit_log
        WHERE account_id = $1 AND action = 'password.changed'`,
      [owner.accountId],
    );
    expect(rows).toEqual([
      { action: 'password.changed', user_agent: 'audit-test-agent', details: { sessionsEnded: 1 } },
    ]);
  });
});
