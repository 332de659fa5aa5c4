import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { as } from '../support/factories';
import { expectError } from '../support/envelope';
import { createTestApp, TestApp } from '../support/test-app';
import { eventually } from '../support/webhook-receiver';

const run = promisify(execFile);
/** The CLI changes the database; the API sees it once its cached answer for the key expires. */
const KEY_CACHE_TTL_MS = 200;

describe('Admin CLI', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { API_KEY_CACHE_TTL_MS: String(KEY_CACHE_TTL_MS) } });
  });
  afterAll(() => t.close());

  /** Runs the compiled CLI (`npm run cli` runs the same code from source) against this test's database. */
  async function cli(...args: string[]): Promise<string> {
    const { stdout } = await run('node', [join(__dirname, '../../dist/cli.js'), ...args], {
      env: { ...process.env, DATABASE_URL: t.env.DATABASE_URL, DB_MIGRATE_ON_START: 'false' },
      timeout: 60_000,
    });
    return stdout.trim();
  }

  it('creates an approved account and a key that works against the API', async () => {
    const accountId = await cli('account:create', '--name', 'Bilhallen AB', '--approve');
    expect(accountId).toMatch(/^[0-9a-f-]{36}$/);
    const key = await cli(
      'key:create',
      accountId,
      '--kind',
      'live',
      '--name',
      'nightly',
      '--scopes',
      'listings:read,account:read',
    );
    expect(key).toMatch(/^svc_live_[0-9A-Za-z]{32}$/);
    const me = await as(t, key).get('/v1/me').expect(200);
    expect(me.body.data.account).toMatchObject({
      id: accountId,
      name: 'Bilhallen AB',
      status: 'APPROVED',
    });
    expect(me.body.data.key).toMatchObject({
      name: 'nightly',
      scopes: ['listings:read', 'account:read'],
    });

    /** The API's answer once the cached one has expired, polled for a bounded time. */
    const meOnceCacheExpired = async (status: number) => {
      let res = await as(t, key).get('/v1/me');
      await eventually(
        async () => (res = await as(t, key).get('/v1/me')).status === status,
        KEY_CACHE_TTL_MS + 5_000,
        () => `GET /v1/me still answers ${res.status}, expected ${status}`,
      );
      return res;
    };
    await cli('account:suspend', accountId);
    expectError(await meOnceCacheExpired(403), 403, 'FORBIDDEN');
    await cli('account:approve', accountId);
    await cli('key:revoke', me.body.data.key.id);
    expectError(await meOnceCacheExpired(401), 401, 'UNAUTHORIZED');
  });

  it('refuses bad input with a message and a non-zero exit', async () => {
    await expect(
      cli('key:create', '7d3c0f5e-8a8e-4b6a-9d0e-2f1b5c4a3e21', '--kind', 'prod'),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('kind'),
    });
    await expect(cli('account:create')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('name'),
    });
  });
});
