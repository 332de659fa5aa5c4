import { admin } from '../support/factories';
import {
  aDashboardOwner,
  addMember,
  csrfFrom,
  DashboardUser,
  lastMailTo,
} from '../support/dashboard';
import { createTestApp, TestApp } from '../support/test-app';

const GOOD = {
  legalName: 'Bilhallen i Umeå AB',
  organisationNumber: '556677-8899',
  website: 'https://bilhallen.example.se',
  integrationDescription: 'Our dealer system publishes our used cars nightly.',
  expectedListings: '101-1000',
  termsAccepted: 'yes',
};

async function send(user: DashboardUser, fields: Record<string, string>, status: number) {
  const csrf = await csrfFrom(user.agent, '/dashboard/access');
  return user.agent
    .post('/dashboard/access')
    .type('form')
    .send({ _csrf: csrf, ...fields })
    .expect(status);
}

async function requestsOf(t: TestApp, accountId: string) {
  return t.dataSource.query(
    `SELECT id, status, legal_name, organisation_number, expected_listings FROM access_requests
      WHERE account_id = $1 ORDER BY created_at`,
    [accountId],
  ) as Promise<{ id: string; status: string; legal_name: string; organisation_number: string }[]>;
}

describe('Dashboard: access request', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('the overview of a pending account links to the form', async () => {
    const owner = await aDashboardOwner(t);
    const overview = await owner.agent.get('/dashboard').expect(200);
    expect(overview.text).toContain('href="/dashboard/access"');
    const page = await owner.agent.get('/dashboard/access').expect(200);
    expect(page.text).toContain('Not requested');
    expect(page.text).toContain('<label for="legalName">Legal name</label>');
    expect(page.text).toContain('Send request');
  });

  it('refuses bad input beside each field, with the values kept', async () => {
    const owner = await aDashboardOwner(t);
    const res = await send(
      owner,
      {
        legalName: 'Bilhallen AB',
        organisationNumber: '556677-8890',
        website: 'ftp://x',
        integrationDescription: 'short',
        expectedListings: 'lots',
      },
      200,
    );
    for (const field of [
      'organisationNumber',
      'website',
      'integrationDescription',
      'expectedListings',
      'termsAccepted',
    ])
      expect(res.text).toContain(`id="${field}-error"`);
    expect(res.text).not.toContain('id="legalName-error"');
    expect(res.text).toContain('value="Bilhallen AB"');
    expect(res.text).toContain('There is a problem');
    expect(await requestsOf(t, owner.accountId)).toHaveLength(0);
  });

  it('sends, edits while pending, is approved by staff (mail), and the form is gone', async () => {
    const owner = await aDashboardOwner(t);
    expect((await send(owner, GOOD, 303)).headers.location).toBe(
      '/dashboard/access?notice=access-requested',
    );
    const pending = await owner.agent.get('/dashboard/access').expect(200);
    expect(pending.text).toContain('Pending');
    expect(pending.text).toContain('Save request');
    expect(pending.text).toContain('value="Bilhallen i Umeå AB"');

    await send(owner, { ...GOOD, legalName: 'Bilhallen Norr AB' }, 303);
    const rows = await requestsOf(t, owner.accountId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      status: 'pending',
      legal_name: 'Bilhallen Norr AB',
      organisation_number: '5566778899',
    });
    const audit = await t.dataSource.query(
      `SELECT actor_type, actor_id FROM audit_log WHERE account_id = $1 AND action = 'access.requested'`,
      [owner.accountId],
    );
    expect(audit).toHaveLength(1);

    await admin(t).post(`/v1/admin/access-requests/${rows[0].id}/approve`).expect(200);
    const mail = await lastMailTo(t, owner.email);
    expect(mail.subject).toBe('Your Listings Service API access is approved');
    expect(mail.text).toContain('/dashboard/keys');
    const approved = await owner.agent.get('/dashboard/access').expect(200);
    expect(approved.text).toContain('Approved');
    expect(approved.text).not.toContain('Send request');
    await send(owner, GOOD, 200);
    expect(await requestsOf(t, owner.accountId)).toHaveLength(1);
  });

  it('a rejection is mailed with its reason, shown, and a new request may be sent', async () => {
    const owner = await aDashboardOwner(t);
    await send(owner, GOOD, 303);
    const [{ id }] = await requestsOf(t, owner.accountId);
    await admin(t)
      .post(`/v1/admin/access-requests/${id}/reject`)
      .send({ reason: 'We could not find the company.' })
      .expect(200);
    const mail = await lastMailTo(t, owner.email);
    expect(mail.subject).toBe('Your Listings Service API access request was rejected');
    expect(mail.text).toContain('We could not find the company.');
    const page = await owner.agent.get('/dashboard/access').expect(200);
    expect(page.text).toContain('Rejected');
    expect(page.text).toContain('We could not find the company.');
    expect(page.text).toContain('Send request');
    await send(owner, GOOD, 303);
    expect((await requestsOf(t, owner.accountId)).map((r) => r.status)).toEqual([
      'rejected',
      'pending',
    ]);
  });

  it("staff's account approval (admin API) mails the owners too", async () => {
    const owner = await aDashboardOwner(t);
    await admin(t).post(`/v1/admin/accounts/${owner.accountId}/approve`).expect(200);
    expect((await lastMailTo(t, owner.email)).subject).toBe(
      'Your Listings Service API access is approved',
    );
  });

  it('developers and viewers see the status only; their POST is refused', async () => {
    const owner = await aDashboardOwner(t);
    await send(owner, GOOD, 303);
    for (const role of ['viewer', 'developer'] as const) {
      const member = await aDashboardOwner(t);
      await addMember(t, member.email, owner.accountId, role);
      const csrf = await csrfFrom(member.agent);
      await member.agent
        .post('/dashboard/account')
        .type('form')
        .send({ _csrf: csrf, accountId: owner.accountId })
        .expect(303);
      const page = await member.agent.get('/dashboard/access').expect(200);
      expect(page.text).toContain('Pending');
      expect(page.text).not.toContain('Save request');
      await send(member, { ...GOOD, legalName: 'Hijack AB' }, 403);
    }
    expect((await requestsOf(t, owner.accountId))[0].legal_name).toBe('Bilhallen i Umeå AB');
  });
});
