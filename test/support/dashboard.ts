import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { AccountsService } from '../../src/accounts/accounts.service';
import type { AccountStatus } from '../../src/auth/principal';
import { admin } from './factories';
import type { TestApp } from './test-app';

/** A password the strength estimator accepts (score 4), for every test user. */
export const STRONG_PASSWORD = 'violet tractor harbour 42 umbrella';

export type DashboardAgent = InstanceType<typeof TestAgent>;

export interface DashboardUser {
  /** keeps the session cookie (and the pre-session CSRF cookie) between requests */
  agent: DashboardAgent;
  email: string;
  password: string;
  accountId: string;
  /** the session's CSRF token as the last page fetched with `csrfFrom` showed it */
  csrf: string;
}

let counter = 0;
export const uniqueEmail = (prefix = 'owner') =>
  `${prefix}.${Date.now().toString(36)}.${++counter}@example.se`;

/** The CSRF token a dashboard page carries (its `<meta name="csrf-token">`). */
export function csrfOf(html: string): string {
  const match = /<meta name="csrf-token" content="([^"]*)">/.exec(html);
  if (!match) throw new Error('No csrf-token meta on the page');
  return match[1];
}

/** GETs `path` with the agent and answers the page's CSRF token. */
export async function csrfFrom(agent: DashboardAgent, path = '/dashboard'): Promise<string> {
  const page = await agent.get(path).expect(200);
  return csrfOf(page.text);
}

/** The newest kept mail to `email`, through the admin API. */
export async function lastMailTo(
  t: TestApp,
  email: string,
): Promise<{ subject: string; text: string }> {
  const res = await admin(t).get(`/v1/admin/emails?to=${encodeURIComponent(email)}&limit=1`);
  if (res.status !== 200 || res.body.data.length === 0) throw new Error(`No mail to ${email}`);
  return res.body.data[0];
}

/** The token of the first dashboard link in a mail (`…/dashboard/<path>?token=…`). */
export function linkToken(text: string, path: string): string {
  const match = new RegExp(`/dashboard/${path}\\?token=([A-Za-z0-9_-]+)`).exec(text);
  if (!match) throw new Error(`No ${path} link in the mail`);
  return match[1];
}

/** Signs up through the forms; the agent is then signed in, email not yet verified. */
export async function signUp(
  t: TestApp,
  options: { email?: string; password?: string; company?: string } = {},
): Promise<DashboardUser & { response: request.Response }> {
  const agent = request.agent(t.app.getHttpServer());
  const email = options.email ?? uniqueEmail();
  const password = options.password ?? STRONG_PASSWORD;
  const csrf = await csrfFrom(agent, '/dashboard/sign-up');
  const response = await agent
    .post('/dashboard/sign-up')
    .type('form')
    .send({
      _csrf: csrf,
      email,
      password,
      company: options.company ?? `Bilhallen ${counter} AB`,
    });
  const rows: { account_id: string }[] = await t.dataSource.query(
    `SELECT m.account_id FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = $1`,
    [email.toLowerCase()],
  );
  return { agent, email, password, accountId: rows[0]?.account_id ?? '', csrf: '', response };
}

/** Opens the verification link of the newest mail with the agent and confirms it. */
export async function verifyFromOutbox(t: TestApp, agent: DashboardAgent, email: string) {
  const token = linkToken((await lastMailTo(t, email)).text, 'verify-email');
  const page = await agent.get(`/dashboard/verify-email?token=${token}`).expect(200);
  return agent
    .post('/dashboard/verify-email')
    .type('form')
    .send({ _csrf: csrfOf(page.text), token });
}

/** Signs in with a fresh agent; answers the sign-in's response (303 on success). */
export async function signIn(
  t: TestApp,
  email: string,
  password: string,
  agent: DashboardAgent = request.agent(t.app.getHttpServer()),
  headers: Record<string, string> = {},
): Promise<{ agent: DashboardAgent; response: request.Response }> {
  const csrf = await csrfFrom(agent, '/dashboard/sign-in');
  const response = await agent
    .post('/dashboard/sign-in')
    .set(headers)
    .type('form')
    .send({ _csrf: csrf, email, password });
  return { agent, response };
}

/**
 * A verified owner of a new account, signed in with a fresh agent (sign up, verify from the
 * outbox, sign in), its account PENDING unless `status` says otherwise.
 */
export async function aDashboardOwner(
  t: TestApp,
  options: { status?: AccountStatus; email?: string; company?: string } = {},
): Promise<DashboardUser> {
  const up = await signUp(t, options);
  if (up.response.status !== 303) throw new Error(`sign-up answered ${up.response.status}`);
  const verified = await verifyFromOutbox(t, up.agent, up.email);
  if (verified.status !== 303) throw new Error(`verification answered ${verified.status}`);
  const { agent, response } = await signIn(t, up.email, up.password);
  if (response.status !== 303) throw new Error(`sign-in answered ${response.status}`);
  if (options.status && options.status !== 'PENDING')
    await setAccountStatus(t, up.accountId, options.status);
  return {
    agent,
    email: up.email,
    password: up.password,
    accountId: up.accountId,
    csrf: await csrfFrom(agent),
  };
}

/** Approves (or suspends) an account through AccountsService, as staff would. */
export async function setAccountStatus(t: TestApp, accountId: string, status: AccountStatus) {
  await t.app.get(AccountsService).setStatus(accountId, status);
}

/** Adds a membership of `email`'s user to an account with a role (until the Members page exists). */
export async function addMember(
  t: TestApp,
  email: string,
  accountId: string,
  role: 'owner' | 'developer' | 'viewer',
): Promise<void> {
  await t.dataSource.query(
    `INSERT INTO memberships (user_id, account_id, role)
     SELECT id, $2, $3 FROM users WHERE email = $1`,
    [email.toLowerCase(), accountId, role],
  );
}
