import { MigrationInterface, QueryRunner } from 'typeorm';

export class Listings1763785000000 implements MigrationInterface {
  name = 'Listings1763785000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE listings (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        external_id text,
        title text NOT NULL,
        description text NOT NULL,
        price integer NOT NULL CHECK (price BETWEEN 0 AND 1000000000),
        currency char(3) NOT NULL DEFAULT 'SEK',
        condition text NOT NULL CHECK (condition IN ('NEW', 'LIKE_NEW', 'GOOD', 'FAIR', 'POOR')),
        category_slug text NOT NULL REFERENCES categories(slug),
        location_lan text NOT NULL REFERENCES lan(slug),
        location_kommun text NOT NULL REFERENCES kommuner(slug),
        phone text,
        attributes jsonb NOT NULL DEFAULT '{}',
        status text NOT NULL CHECK (status IN ('DRAFT', 'ACTIVE', 'SOLD', 'EXPIRED', 'REMOVED')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz,
        expires_at timestamptz,
        sold_at timestamptz,
        expired_at timestamptz,
        removed_at timestamptz,
        removal_reason text,
        CHECK (livemode OR status <> 'ACTIVE' OR expires_at IS NOT NULL)
      )`);
    // externalId names one live listing per account and mode; REMOVED ones free it again.
    await q.query(`
      CREATE UNIQUE INDEX listings_external_id_uq ON listings (account_id, livemode, external_id)
      WHERE external_id IS NOT NULL AND status <> 'REMOVED'`);
    // One index per list order the API offers, each ending in id so ties page stably.
    await q.query(
      `CREATE INDEX listings_newest_idx ON listings (account_id, livemode, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX listings_status_newest_idx ON listings (account_id, livemode, status, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX listings_price_idx ON listings (account_id, livemode, price, id)`);
    await q.query(
      `CREATE INDEX listings_status_price_idx ON listings (account_id, livemode, status, price, id)`,
    );
    await q.query(
      `CREATE INDEX listings_updated_idx ON listings (account_id, livemode, updated_at, id)`,
    );
    await q.query(
      `CREATE INDEX listings_expiry_idx ON listings (expires_at) WHERE status = 'ACTIVE'`,
    );

    await q.query(`
      CREATE TABLE listing_images (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        listing_id uuid NOT NULL REFERENCES listings(id) ON DELETE CASCADE,
        url text NOT NULL,
        storage_key text,
        position smallint NOT NULL CHECK (position BETWEEN 0 AND 29),
        created_at timestamptz NOT NULL DEFAULT now(),
        -- Deferred so a gallery can be renumbered inside one transaction.
        CONSTRAINT listing_images_position_uq UNIQUE (listing_id, position) DEFERRABLE INITIALLY DEFERRED
      )`);

    // Exact totals for GET /listings without counting rows. Triggers append one delta row per
    // (account, mode, status) a statement touches: insert-only, so concurrent writers never queue
    // on a shared counter row. A periodic job folds deltas into listing_counts in one statement;
    // a total is the base plus the deltas not yet folded, exact at every moment.
    await q.query(`
      CREATE TABLE listing_counts (
        account_id uuid NOT NULL,
        livemode boolean NOT NULL,
        status text NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (account_id, livemode, status)
      )`);
    await q.query(`
      CREATE TABLE listing_count_deltas (
        id bigserial PRIMARY KEY,
        account_id uuid NOT NULL,
        livemode boolean NOT NULL,
        status text NOT NULL,
        delta integer NOT NULL
      )`);
    await q.query(
      `CREATE INDEX listing_count_deltas_account_idx ON listing_count_deltas (account_id, livemode)`,
    );
    const deltas = (rows: string) => `
      INSERT INTO listing_count_deltas (account_id, livemode, status, delta)
      SELECT account_id, livemode, status, sum(d) FROM (${rows}) x
      GROUP BY account_id, livemode, status HAVING sum(d) <> 0`;
    const oldRows = 'SELECT account_id, livemode, status, -1 AS d FROM old_rows';
    const newRows = 'SELECT account_id, livemode, status, 1 AS d FROM new_rows';
    for (const [op, rows, referencing] of [
      ['insert', newRows, 'NEW TABLE AS new_rows'],
      ['update', `${oldRows} UNION ALL ${newRows}`, 'OLD TABLE AS old_rows NEW TABLE AS new_rows'],
      ['delete', oldRows, 'OLD TABLE AS old_rows'],
    ]) {
      await q.query(`CREATE FUNCTION listing_counts_${op}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN ${deltas(rows)}; RETURN NULL; END $$`);
      await q.query(`CREATE TRIGGER listing_counts_${op} AFTER ${op.toUpperCase()} ON listings
        REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION listing_counts_${op}()`);
    }

    await q.query(`
      CREATE TABLE outbox_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigserial NOT NULL,
        account_id uuid NOT NULL REFERENCES accounts(id),
        event text NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        relayed_at timestamptz
      )`);
    await q.query(
      `CREATE INDEX outbox_events_pending_idx ON outbox_events (seq) WHERE relayed_at IS NULL`,
    );
    await q.query(`CREATE INDEX outbox_events_account_idx ON outbox_events (account_id, seq)`);

    await q.query(`
      CREATE TABLE idempotency_keys (
        account_id uuid NOT NULL REFERENCES accounts(id),
        livemode boolean NOT NULL,
        key text NOT NULL,
        fingerprint char(64) NOT NULL,
        status_code smallint,
        response jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, livemode, key)
      )`);
    await q.query(`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE idempotency_keys`);
    await q.query(`DROP TABLE outbox_events`);
    await q.query(`DROP TABLE listing_images`);
    await q.query(`DROP TABLE listings`);
    for (const op of ['insert', 'update', 'delete'])
      await q.query(`DROP FUNCTION listing_counts_${op}()`);
    await q.query(`DROP TABLE listing_count_deltas`);
    await q.query(`DROP TABLE listing_counts`);
  }
}
