import { whileProvokingServerErrors } from './contract';
import type { TestApp } from './test-app';

/**
 * Runs `fn` while the database refuses to insert listings matching `when` (a trigger condition
 * on NEW), so that a request fails with a genuine 500 from deep inside its transaction. The
 * refusal's SQLSTATE is `errcode` (by default P0001, an error raised by a function).
 */
export async function withFailingListingInserts(
  t: TestApp,
  when: string,
  fn: () => Promise<void>,
  errcode = 'P0001',
): Promise<void> {
  await t.dataSource.query(`CREATE FUNCTION fail_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'simulated failure' USING ERRCODE = '${errcode}'; END $$`);
  await t.dataSource.query(`CREATE TRIGGER fail_insert BEFORE INSERT ON listings
    FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION fail_insert()`);
  try {
    await whileProvokingServerErrors(fn);
  } finally {
    await t.dataSource.query(`DROP TRIGGER fail_insert ON listings`);
    await t.dataSource.query(`DROP FUNCTION fail_insert()`);
  }
}
