import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { anAccount, admin, as, createKey, TestAccount } from '../support/factories';
import { expectError } from '../support/envelope';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';

/**
 * Sends the head of a POST announcing `contentLength` bytes and only `sent` of them, then waits for
 * the answer's status line; the rest of the body is never sent.
 */
function postPartially(t: TestApp, path: string, contentLength: number, sent: number) {
  const { port } = t.app.getHttpServer().address() as AddressInfo;
  return new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on('error', reject);
    // Without an answer the server is waiting for the rest of the body: fail, and free the socket
    // so the app can close.
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error(`no answer to ${path} before the body was complete`));
    });
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${contentLength}\r\n\r\n{"title":"${'x'.repeat(sent)}`,
    );
  });
}

describe('Authentication and authorisation', () => {
  let t: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    account = await anAccount(t).build();
  });
  afterAll(() => t.close());

  describe('401 UNAUTHORIZED', () => {
    it('before the body is read: a 5 MB body without a key is answered 401 after its first bytes', async () => {
      const answer = await postPartially(t, '/v1/listings', 5 * 1024 * 1024, 1024);
      expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    });

    it('before a body under the limit is read, too', async () => {
      const answer = await postPartially(t, '/v1/listings', 1024 * 1024, 1024);
      expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    });

    it('outside the API prefix too: no body is read before the queue dashboard checks its token', async () => {
      const dashboard = await postPartially(
        t,
        '/admin/queues/api/queues/x/clean',
        1024 * 1024,
        1024,
      );
      expect(dashboard).toMatch(/^HTTP\/1\.1 401 /);
      const elsewhere = await postPartially(t, '/anything', 1024 * 1024, 1024);
      expect(elsewhere).toMatch(/^HTTP\/1\.1 404 /);
    });

    it('without an Authorization header', async () => {
      expectError(await t.http().get('/v1/categories'), 401, 'UNAUTHORIZED');
    });

    it('with a header that is not a bearer token', async () => {
      for (const header of [
        `Basic ${account.liveKey}`,
        'Bearer',
        `Bearer ${account.liveKey} extra`,
        account.liveKey,
      ]) {
        expectError(
          await t.http().get('/v1/categories').set('Authorization', header),
          401,
          'UNAUTHORIZED',
        );
      }
    });

    it('with a malformed or unknown key', async () => {
      for (const key of [
        'svc_live_short',
        'sk_live_' + 'a'.repeat(32),
        'svc_live_' + 'A'.repeat(32),
        'svc_prod_' + 'a'.repeat(32),
      ]) {
        expectError(await as(t, key).get('/v1/categories'), 401, 'UNAUTHORIZED');
      }
    });

    it('with a revoked key, at once on the instance that revoked it', async () => {
      const key = await createKey(t, account.id, { kind: 'live' });
      await as(t, key).get('/v1/categories').expect(200);
      const me = await as(t, key).get('/v1/me').expect(200);
      await admin(t).delete(`/v1/admin/keys/${me.body.data.key.id}`).expect(200);
      expectError(await as(t, key).get('/v1/categories'), 401, 'UNAUTHORIZED');
    });

    it('with a revoked key, within 5 seconds on another instance that had it cached', async () => {
      const other = await createTestApp({
        databaseName: t.databaseName,
        redisPrefix: t.redisPrefix,
      });
      try {
        const key = await createKey(t, account.id, { kind: 'live' });
        const me = await as(other, key).get('/v1/me').expect(200);
        await admin(t).delete(`/v1/admin/keys/${me.body.data.key.id}`).expect(200);
        const revokedAt = Date.now();
        let status = 200;
        while (status === 200 && Date.now() - revokedAt < 6_000) {
          status = (await as(other, key).get('/v1/categories')).status;
          if (status === 200) await new Promise((r) => setTimeout(r, 250));
        }
        expect(status).toBe(401);
        expect(Date.now() - revokedAt).toBeLessThan(5_000);
      } finally {
        await other.close();
      }
    });
  });

  describe('403 FORBIDDEN', () => {
    it('for a key of an account that is not yet approved: it gets none, of either kind', async () => {
      const pending = await admin(t)
        .post('/v1/admin/accounts')
        .send({ name: 'Väntar AB' })
        .expect(201);
      for (const kind of ['live', 'test']) {
        const error = expectError(
          await admin(t).post(`/v1/admin/accounts/${pending.body.data.id}/keys`).send({ kind }),
          403,
          'FORBIDDEN',
        );
        expect(error.message).toMatch(/approved accounts only; this account is pending/);
      }
    });

    it('for a key of a suspended account, and again after approval it works', async () => {
      const suspended = await anAccount(t).suspended().build();
      expectError(await as(t, suspended.liveKey).get('/v1/me'), 403, 'FORBIDDEN');
      await admin(t).post(`/v1/admin/accounts/${suspended.id}/approve`).expect(200);
      await as(t, suspended.liveKey).get('/v1/me').expect(200);
    });

    it('for a key without the route scope', async () => {
      const key = await createKey(t, account.id, { kind: 'live', scopes: ['listings:read'] });
      const error = expectError(await as(t, key).get('/v1/me'), 403, 'FORBIDDEN');
      expect(error.message).toContain('account:read');
      await as(t, key).get('/v1/categories').expect(200);
    });
  });

  describe('admin API', () => {
    it('refuses a wrong admin token and an API key', async () => {
      expectError(
        await t.http().post('/v1/admin/accounts').send({ name: 'X AB' }),
        401,
        'UNAUTHORIZED',
      );
      expectError(
        await as(t, account.liveKey).post('/v1/admin/accounts').send({ name: 'X AB' }),
        401,
        'UNAUTHORIZED',
      );
      expectError(
        await as(t, `${ADMIN_TOKEN}x`).post('/v1/admin/accounts').send({ name: 'X AB' }),
        401,
        'UNAUTHORIZED',
      );
    });

    it('does not exist (404) when ADMIN_TOKEN is unset', async () => {
      const bare = await createTestApp({
        databaseName: t.databaseName,
        env: { ADMIN_TOKEN: undefined },
      });
      try {
        expectError(
          await as(bare, ADMIN_TOKEN).post('/v1/admin/accounts').send({ name: 'X AB' }),
          404,
          'NOT_FOUND',
        );
      } finally {
        await bare.close();
      }
    });

    it('shows a new key once; the stored record keeps only its SHA-256', async () => {
      const res = await admin(t)
        .post(`/v1/admin/accounts/${account.id}/keys`)
        .send({ kind: 'test', name: 'nightly sync' })
        .expect(201);
      const { key, prefix, kind, scopes } = res.body.data;
      expect(key).toMatch(/^svc_test_[0-9A-Za-z]{32}$/);
      expect(prefix).toBe(key.slice(0, 12));
      expect(kind).toBe('test');
      expect(scopes).toEqual([
        'listings:read',
        'listings:write',
        'webhooks:manage',
        'account:read',
      ]);
      const [row] = await t.dataSource.query('SELECT * FROM api_keys WHERE id = $1', [
        res.body.data.id,
      ]);
      expect(row.key_hash).toBe(createHash('sha256').update(key).digest('hex'));
      expect(JSON.stringify(row)).not.toContain(key);
    });
  });

  describe('from a blocked address', () => {
    let blocked: TestApp;

    beforeAll(async () => {
      blocked = await createTestApp({ env: { RATE_LIMIT_AUTH_FAILURES_PER_MIN: '1' } });
      for (let i = 0; i < 2; i++) await blocked.http().get('/v1/me');
    });
    afterAll(() => blocked.close());

    it('a body without a key is refused with 429 before it is read', async () => {
      const answer = await postPartially(blocked, '/v1/listings', 1024 * 1024, 1024);
      expect(answer).toMatch(/^HTTP\/1\.1 429 /);
    });
  });
});
