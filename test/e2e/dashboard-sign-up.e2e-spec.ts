import { AccountsService } from '../../src/accounts/accounts.service';
import {
  aDashboardOwner,
  csrfFrom,
  csrfOf,
  lastMailTo,
  linkToken,
  signIn,
  signUp,
  STRONG_PASSWORD,
  uniqueEmail,
  verifyFromOutbox,
} from '../support/dashboard';
import { createTestApp, TestApp } from '../support/test-app';

describe('Dashboard: sign-up, verification, sign-in, overview', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('sign-up makes a user, a PENDING account and an owner membership, and mails a verify link', async () => {
    const email = uniqueEmail();
    const up = await signUp(t, { email, company: 'Bilhallen AB' });
    expect(up.response.status).toBe(303);
    expect(up.response.headers.location).toBe('/dashboard/verify-email');
    const account = await t.app.get(AccountsService).get(up.accountId);
    expect(account).toMatchObject({ name: 'Bilhallen AB', status: 'PENDING' });
    const [membership] = await t.dataSource.query(
      `SELECT role FROM memberships WHERE account_id = $1`,
      [up.accountId],
    );
    expect(membership.role).toBe('owner');
    const mail = await lastMailTo(t, email);
    expect(mail.subject).toMatch(/Verify your email/);
    expect(mail.text).toMatch(/http:\/\/127\.0\.0\.1\/dashboard\/verify-email\?token=/);
    // The database keeps no password and no token in the clear.
    const [user] = await t.dataSource.query(`SELECT password_hash FROM users WHERE email = $1`, [
      email,
    ]);
    expect(user.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const tokens = await t.dataSource.query(`SELECT token_hash FROM user_tokens WHERE email = $1`, [
      email,
    ]);
    expect(tokens).toHaveLength(1);
    expect(tokens[0].token_hash).toHaveLength(32);
  });

  it('an unverified user sees only the verify-your-email page', async () => {
    const up = await signUp(t);
    const overview = await up.agent.get('/dashboard');
    expect(overview.status).toBe(303);
    expect(overview.headers.location).toBe('/dashboard/verify-email');
    const page = await up.agent.get('/dashboard/verify-email').expect(200);
    expect(page.text).toContain('Send a new link');
    expect(page.text).not.toContain('aria-label="Dashboard"');
  });

  it('the verify link works once; a second use is refused', async () => {
    const up = await signUp(t);
    const token = linkToken((await lastMailTo(t, up.email)).text, 'verify-email');
    const first = await verifyFromOutbox(t, up.agent, up.email);
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/dashboard?notice=verified');
    // The whole dashboard opened to this session: it got a new token.
    expect(String(first.headers['set-cookie'])).toMatch(/lsvc_session=/);
    const again = await up.agent.get(`/dashboard/verify-email?token=${token}`);
    expect(again.status).toBe(400);
    expect(again.text).toContain('expired or was already used');
  });

  it('a resend makes the earlier link useless', async () => {
    const up = await signUp(t);
    const first = linkToken((await lastMailTo(t, up.email)).text, 'verify-email');
    const csrf = await csrfFrom(up.agent, '/dashboard/verify-email');
    await up.agent
      .post('/dashboard/verify-email/resend')
      .type('form')
      .send({ _csrf: csrf })
      .expect(303);
    const second = linkToken((await lastMailTo(t, up.email)).text, 'verify-email');
    expect(second).not.toBe(first);
    expect((await up.agent.get(`/dashboard/verify-email?token=${first}`)).status).toBe(400);
    expect((await up.agent.get(`/dashboard/verify-email?token=${second}`)).status).toBe(200);
  });

  it('sign up → verify from the outbox → sign in → the overview shows the account as it is', async () => {
    const owner = await aDashboardOwner(t, { company: 'Överview & Co AB' });
    const page = await owner.agent.get('/dashboard').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('Överview &amp; Co AB');
    expect(page.text).toContain('PENDING');
    expect(page.text).toContain('Request access');
    expect(page.text).toMatch(/Your role<\/dt><dd>owner/);
    expect(page.text).toContain('Test mode: you see and change test data only');
    for (const label of [
      'Overview',
      'Keys',
      'Usage',
      'Webhooks',
      'Imports',
      'Sandbox',
      'Members',
      'Security log',
    ])
      expect(page.text).toContain(`>${label}</a>`);
  });

  it("a weak password is refused with the estimator's reason, beside the field and in the summary", async () => {
    const up = await signUp(t, { password: 'password1234' });
    expect(up.response.status).toBe(200);
    expect(up.response.text).toContain('There is a problem');
    expect(up.response.text).toContain('href="#password"');
    expect(up.response.text).toMatch(/id="password-error"[^>]*>.*too easy to guess/s);
    expect(up.response.text).toMatch(/aria-invalid="true"/);
    expect(up.response.text).toMatch(/aria-describedby="password-hint password-error"/);
    // The password is never written back into the form.
    expect(up.response.text).not.toContain('password1234');
    const short = await signUp(t, { password: 'Xy7#short' });
    expect(short.response.text).toContain('Use at least 12 characters.');
  });

  it('an email taken already is refused on the email field', async () => {
    const email = uniqueEmail();
    await signUp(t, { email });
    const again = await signUp(t, { email: email.toUpperCase() });
    expect(again.response.status).toBe(200);
    expect(again.response.text).toContain('An account with this email already exists');
  });

  it('sign-in while signed in elsewhere makes a separate session; the overview needs a session', async () => {
    const owner = await aDashboardOwner(t);
    const other = await signIn(t, owner.email, STRONG_PASSWORD);
    expect(other.response.status).toBe(303);
    expect(other.response.headers.location).toBe('/dashboard');
    const anonymous = await t.http().get('/dashboard');
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.location).toBe('/dashboard/sign-in?next=%2Fdashboard');
  });

  it('the mode switch is kept in the session and shown on every page', async () => {
    const owner = await aDashboardOwner(t, { status: 'APPROVED' });
    await owner.agent
      .post('/dashboard/mode')
      .type('form')
      .send({ _csrf: owner.csrf, mode: 'live', next: '/dashboard' })
      .expect(303)
      .expect('Location', '/dashboard');
    const page = await owner.agent.get('/dashboard').expect(200);
    expect(page.text).toMatch(/Mode: <strong>Live<\/strong>/);
    expect(page.text).not.toContain('Test mode: you see');
    expect(page.text).toContain('Switch to test mode');
  });

  it('a SUSPENDED account shows its banner, and its people read but change only their own things', async () => {
    const owner = await aDashboardOwner(t, { status: 'SUSPENDED' });
    const page = await owner.agent.get('/dashboard').expect(200);
    expect(page.text).toContain('SUSPENDED: this account is suspended');

    const invite = await owner.agent
      .post('/dashboard/members/invitations')
      .type('form')
      .send({ _csrf: owner.csrf, email: uniqueEmail('colleague'), role: 'developer' });
    expect(invite.status).toBe(403);
    expect(invite.text).toContain('This account is suspended');
    const [{ n }] = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM user_tokens WHERE account_id = $1 AND purpose = 'invitation'`,
      [owner.accountId],
    );
    expect(n).toBe(0);
    await owner.agent.get('/dashboard/members').expect(200);
    // The person's own choices still go through.
    await owner.agent
      .post('/dashboard/mode')
      .type('form')
      .send({ _csrf: owner.csrf, mode: 'live', next: '/dashboard' })
      .expect(303);
  });

  it('a user with two accounts switches between them; another account id is refused with 404', async () => {
    const a = await aDashboardOwner(t, { company: 'First AB' });
    const b = await aDashboardOwner(t, { company: 'Second AB' });
    await t.dataSource.query(
      `INSERT INTO memberships (user_id, account_id, role)
       SELECT id, $2, 'viewer' FROM users WHERE email = $1`,
      [a.email, b.accountId],
    );
    const page = await a.agent.get('/dashboard').expect(200);
    expect(page.text).toContain('<label for="account-switch">Account</label>');
    const csrf = csrfOf(page.text);
    await a.agent
      .post('/dashboard/account')
      .type('form')
      .send({ _csrf: csrf, accountId: b.accountId })
      .expect(303);
    const switched = await a.agent.get('/dashboard').expect(200);
    expect(switched.text).toMatch(/Name<\/dt><dd>Second AB/);
    expect(switched.text).toMatch(/Your role<\/dt><dd>viewer/);
    const stranger = await aDashboardOwner(t, { company: 'Third AB' });
    const refused = await a.agent
      .post('/dashboard/account')
      .type('form')
      .send({ _csrf: csrfOf(switched.text), accountId: stranger.accountId });
    expect(refused.status).toBe(404);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
  });
});
