import { MigrationInterface, QueryRunner } from 'typeorm';

export class Foundation1763780000000 implements MigrationInterface {
  name = 'Foundation1763780000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE accounts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'APPROVED', 'SUSPENDED')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('live', 'test')),
        prefix text NOT NULL,
        key_hash char(64) NOT NULL,
        scopes text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX api_keys_key_hash_uq ON api_keys (key_hash)`);
    await q.query(`CREATE INDEX api_keys_account_idx ON api_keys (account_id)`);

    await q.query(`
      CREATE TABLE lan (
        code char(2) PRIMARY KEY,
        slug text NOT NULL UNIQUE,
        name text NOT NULL
      )`);
    await q.query(`
      CREATE TABLE kommuner (
        code char(4) PRIMARY KEY,
        slug text NOT NULL UNIQUE,
        name text NOT NULL,
        lan_code char(2) NOT NULL REFERENCES lan(code),
        CHECK (left(code, 2) = lan_code)
      )`);
    await q.query(`
      CREATE TABLE categories (
        slug text PRIMARY KEY,
        parent_slug text REFERENCES categories(slug),
        name text NOT NULL,
        position int NOT NULL,
        is_leaf boolean NOT NULL,
        attributes jsonb NOT NULL DEFAULT '[]'
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE categories`);
    await q.query(`DROP TABLE kommuner`);
    await q.query(`DROP TABLE lan`);
    await q.query(`DROP TABLE api_keys`);
    await q.query(`DROP TABLE accounts`);
  }
}
