import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `access_requests`: a PENDING account asks for API access; staff approve or reject it. One open
 * (pending) request per account, enforced by a partial unique index; a rejected account may send
 * another. `api_keys.expires_at`: a rolled key keeps working until then, and no longer after.
 */
export class AccessRequestsAndKeyExpiry1765700000000 implements MigrationInterface {
  name = 'AccessRequestsAndKeyExpiry1765700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE access_requests (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
      legal_name text NOT NULL,
      organisation_number char(10) NOT NULL CHECK (organisation_number ~ '^[0-9]{10}$'),
      website text NOT NULL,
      integration_description text NOT NULL,
      expected_listings text NOT NULL
        CHECK (expected_listings IN ('1-100', '101-1000', '1001-10000', '10001-100000', '100001+')),
      terms_accepted boolean NOT NULL CHECK (terms_accepted),
      decided_at timestamptz,
      decided_by text,
      rejection_reason text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((status = 'pending') = (decided_at IS NULL)),
      CHECK ((status = 'rejected') = (rejection_reason IS NOT NULL))
    )`);
    await q.query(`CREATE UNIQUE INDEX access_requests_one_open_uq ON access_requests (account_id)
      WHERE status = 'pending'`);
    await q.query(
      `CREATE INDEX access_requests_account_idx ON access_requests (account_id, created_at DESC)`,
    );
    await q.query(
      `CREATE INDEX access_requests_status_idx ON access_requests (status, created_at, id)`,
    );
    await q.query(`ALTER TABLE api_keys ADD COLUMN expires_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_keys DROP COLUMN expires_at`);
    await q.query(`DROP TABLE access_requests`);
  }
}
