import type { TestApp } from './test-app';
import { ADMIN_TOKEN } from './test-app';

export interface TestAccount {
  id: string;
  /** svc_live_ key with every scope */
  liveKey: string;
  /** svc_test_ key with every scope */
  testKey: string;
}

/** Builder over the admin HTTP API, so fixtures go through the same code as real provisioning. */
export class AccountBuilder {
  // No PENDING builder: a pending account has no keys (only approved accounts get them).
  private status: 'APPROVED' | 'SUSPENDED' = 'APPROVED';
  private name = `Test AB ${Math.random().toString(36).slice(2, 8)}`;

  constructor(private readonly t: TestApp) {}

  suspended(): this {
    this.status = 'SUSPENDED';
    return this;
  }

  named(name: string): this {
    this.name = name;
    return this;
  }

  async build(): Promise<TestAccount> {
    const account = await admin(this.t)
      .post('/v1/admin/accounts')
      .send({ name: this.name, approve: true })
      .expect(201);
    const id = account.body.data.id as string;
    const liveKey = await createKey(this.t, id, { kind: 'live' });
    const testKey = await createKey(this.t, id, { kind: 'test' });
    if (this.status === 'SUSPENDED')
      await admin(this.t).post(`/v1/admin/accounts/${id}/suspend`).expect(200);
    return { id, liveKey, testKey };
  }
}

export const anAccount = (t: TestApp) => new AccountBuilder(t);

export async function createKey(
  t: TestApp,
  accountId: string,
  body: { kind: 'live' | 'test'; scopes?: string[]; name?: string },
): Promise<string> {
  const res = await admin(t).post(`/v1/admin/accounts/${accountId}/keys`).send(body).expect(201);
  return res.body.data.key as string;
}

/** Admin-API calls with the token attached. */
export function admin(t: TestApp) {
  const auth = (r: ReturnType<ReturnType<TestApp['http']>['get']>) =>
    r.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  return {
    get: (path: string) => auth(t.http().get(path)),
    post: (path: string) => auth(t.http().post(path)),
    patch: (path: string) => auth(t.http().patch(path)),
    delete: (path: string) => auth(t.http().delete(path)),
  };
}

/** API calls with an API key attached. */
export function as(t: TestApp, key: string) {
  const auth = (r: ReturnType<ReturnType<TestApp['http']>['get']>) =>
    r.set('Authorization', `Bearer ${key}`);
  return {
    get: (path: string) => auth(t.http().get(path)),
    post: (path: string) => auth(t.http().post(path)),
    put: (path: string) => auth(t.http().put(path)),
    patch: (path: string) => auth(t.http().patch(path)),
    delete: (path: string) => auth(t.http().delete(path)),
  };
}
