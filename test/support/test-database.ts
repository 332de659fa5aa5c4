import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** Admin connection for creating and dropping the run's databases. */
export const PG_ADMIN_URL =
  process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function databaseUrl(name: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function withAdminClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Every run gets its own id; all its databases and Redis keys carry it, so runs never collide. */
export function runId(): string {
  const id = process.env.TEST_RUN_ID;
  if (!id) throw new Error('TEST_RUN_ID is not set: run the tests through jest (global setup)');
  return id;
}

export const templateName = (id: string) => `lsvc_test_${id}_tpl`;

/** A Redis key prefix of this run (the teardown deletes every key under the run's prefixes). */
export const newRedisPrefix = () => `t${runId()}${randomBytes(3).toString('hex')}`;

/** A fresh database for one test file, cloned from the migrated and seeded template. */
export async function createTestDatabase(): Promise<string> {
  const name = `lsvc_test_${runId()}_${randomBytes(4).toString('hex')}`;
  await withAdminClient((c) =>
    c.query(`CREATE DATABASE "${name}" TEMPLATE "${templateName(runId())}"`),
  );
  return name;
}
