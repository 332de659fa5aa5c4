import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { RecordScope } from '../common/auth/scope';
import type { ListingSort, ListingStatus } from './listing.constants';
import { CONTENT_COLUMNS, ListingContent, ListingRow } from './listing-row';

/** The row plus its gallery, as one JSON array sorted by position. */
const SELECT_LISTING = `
  l.*, COALESCE((
    SELECT json_agg(json_build_object('id', i.id, 'url', i.url, 'order', i.position) ORDER BY i.position)
    FROM listing_images i WHERE i.listing_id = l.id), '[]') AS images`;

const ORDER_BY: Record<ListingSort | 'updated', string> = {
  newest: 'l.created_at DESC, l.id DESC',
  oldest: 'l.created_at ASC, l.id ASC',
  price_asc: 'l.price ASC, l.id ASC',
  price_desc: 'l.price DESC, l.id DESC',
  updated: 'l.updated_at ASC, l.id ASC',
};

export interface NewListing extends ListingContent {
  scope: RecordScope;
  status: ListingStatus;
  publishedAt: Date | null;
  expiresAt: Date | null;
  images: { url: string }[];
}

export interface ListFilter {
  status?: ListingStatus;
  externalId?: string;
  updatedSince?: Date;
  sort: ListingSort;
  limit: number;
  offset: number;
}

/**
 * SQL for listings. Writes are single guarded statements where possible, so the database,
 * not a read-then-write in the service, decides races.
 */
@Injectable()
export class ListingsStore {
  /**
   * Inserts listings and their galleries in two statements, whatever their number. Ids are made
   * here so rows and images are matched by id, not by the order RETURNING happens to use.
   */
  async insertMany(em: EntityManager, listings: NewListing[]): Promise<ListingRow[]> {
    const withIds = listings.map((listing) => ({ id: randomUUID(), ...listing }));
    const rows: Omit<ListingRow, 'images'>[] = await em.query(
      `INSERT INTO listings (id, account_id, livemode, external_id, title, description, price, condition,
         category_slug, location_lan, location_kommun, phone, attributes, status, published_at, expires_at)
       SELECT x.id, x."accountId", x.livemode, x."externalId", x.title, x.description, x.price, x.condition,
         x."categorySlug", x."locationLan", x."locationKommun", x.phone, x.attributes, x.status, x."publishedAt", x."expiresAt"
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, "accountId" uuid, livemode boolean, "externalId" text,
         title text, description text, price integer, condition text, "categorySlug" text, "locationLan" text,
         "locationKommun" text, phone text, attributes jsonb, status text, "publishedAt" timestamptz, "expiresAt" timestamptz)
       RETURNING *`,
      [
        JSON.stringify(
          withIds.map(({ scope, images: _images, ...listing }) => ({
            ...listing,
            accountId: scope.accountId,
            livemode: scope.livemode,
          })),
        ),
      ],
    );
    const images = await this.insertImages(
      em,
      withIds.flatMap((listing) =>
        listing.images.map((image, position) => ({
          listingId: listing.id,
          url: image.url,
          position,
        })),
      ),
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return withIds.map((listing) => ({
      ...byId.get(listing.id)!,
      images: images.get(listing.id) ?? [],
    }));
  }

  /** Replaces the whole gallery with `images`, in that order. */
  async replaceImages(
    em: EntityManager,
    listingId: string,
    images: { url: string }[],
  ): Promise<ListingRow['images']> {
    await em.query('DELETE FROM listing_images WHERE listing_id = $1', [listingId]);
    const inserted = await this.insertImages(
      em,
      images.map((image, position) => ({ listingId, url: image.url, position })),
    );
    return inserted.get(listingId) ?? [];
  }

  /** One statement for any number of images; returns each listing's gallery sorted by position. */
  private async insertImages(
    em: EntityManager,
    images: { listingId: string; url: string; position: number }[],
  ): Promise<Map<string, ListingRow['images']>> {
    const galleries = new Map<string, ListingRow['images']>();
    if (images.length === 0) return galleries;
    const rows: { listing_id: string; id: string; url: string; order: number }[] = await em.query(
      `INSERT INTO listing_images (listing_id, url, position)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::smallint[])
       RETURNING listing_id, id, url, position AS "order"`,
      [images.map((i) => i.listingId), images.map((i) => i.url), images.map((i) => i.position)],
    );
    for (const { listing_id, ...image } of rows.sort((a, b) => a.order - b.order)) {
      galleries.set(listing_id, [...(galleries.get(listing_id) ?? []), image]);
    }
    return galleries;
  }

  /** With `lock`, the row stays locked for the rest of the transaction: concurrent edits take turns. */
  async find(
    em: EntityManager,
    scope: RecordScope,
    id: string,
    lock = false,
  ): Promise<ListingRow | undefined> {
    const where = 'id = $1 AND account_id = $2 AND livemode = $3';
    return lock
      ? this.lockThenRead(em, where, [id, scope.accountId, scope.livemode])
      : this.read(em, where, [id, scope.accountId, scope.livemode]);
  }

  /** The listing holding this externalId (not REMOVED), locked. */
  findByExternalIdForUpdate(
    em: EntityManager,
    scope: RecordScope,
    externalId: string,
  ): Promise<ListingRow | undefined> {
    return this.lockThenRead(
      em,
      `account_id = $1 AND livemode = $2 AND external_id = $3 AND status <> 'REMOVED'`,
      [scope.accountId, scope.livemode, externalId],
    );
  }

  /** Any account's listing, locked, for the admin API. */
  findAnyForUpdate(em: EntityManager, id: string): Promise<ListingRow | undefined> {
    return this.lockThenRead(em, 'id = $1', [id]);
  }

  private async read(
    em: EntityManager,
    where: string,
    params: unknown[],
  ): Promise<ListingRow | undefined> {
    const [row] = await em.query(`SELECT ${SELECT_LISTING} FROM listings l WHERE ${where}`, params);
    return row;
  }

  /**
   * Locks, then reads in a second statement. A statement that waited for the lock still sees
   * everything else (the gallery) as it was when it started; a new statement sees what the
   * previous holder committed, so positions are never computed from a stale gallery.
   */
  private async lockThenRead(
    em: EntityManager,
    where: string,
    params: unknown[],
  ): Promise<ListingRow | undefined> {
    const [locked] = await em.query(`SELECT id FROM listings WHERE ${where} FOR UPDATE`, params);
    return locked ? this.read(em, 'id = $1', [locked.id]) : undefined;
  }

  async updateContent(
    em: EntityManager,
    id: string,
    changes: Partial<ListingContent>,
  ): Promise<ListingRow> {
    const entries = Object.entries(changes) as [keyof ListingContent, unknown][];
    const sets = entries.map(([field], i) => `${CONTENT_COLUMNS[field]} = $${i + 2}`);
    const values = entries.map(([field, value]) =>
      field === 'attributes' ? JSON.stringify(value) : value,
    );
    const [[row]] = await em.query(
      `UPDATE listings SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1 RETURNING *`,
      [id, ...values],
    );
    return row;
  }

  /**
   * Applies `set` only if the listing is in one of `from`; returns the new row and its previous
   * status, or undefined when no row matched (absent, or in another state).
   */
  async transition(
    em: EntityManager,
    where: { id: string; scope?: RecordScope },
    from: readonly ListingStatus[] | 'not-removed',
    set: string,
    params: unknown[] = [],
  ): Promise<(ListingRow & { previous_status: ListingStatus }) | undefined> {
    const values: unknown[] = [where.id, ...params];
    const conditions = ['l.id = $1'];
    if (where.scope) {
      values.push(where.scope.accountId, where.scope.livemode);
      conditions.push(`l.account_id = $${values.length - 1}`, `l.livemode = $${values.length}`);
    }
    if (from === 'not-removed') {
      conditions.push(`l.status <> 'REMOVED'`);
    } else {
      values.push(from);
      conditions.push(`l.status = ANY($${values.length})`);
    }
    const [[changed]] = await em.query(
      `UPDATE listings u SET ${set}, updated_at = now()
       FROM (SELECT l.id, l.status FROM listings l WHERE ${conditions.join(' AND ')} FOR UPDATE) old
       WHERE u.id = old.id
       RETURNING u.id, old.status AS previous_status`,
      values,
    );
    if (!changed) return undefined;
    // Read back in a new statement: one that waited for the lock would return a stale gallery.
    const row = (await this.read(em, 'id = $1', [changed.id]))!;
    return { ...row, previous_status: changed.previous_status };
  }

  async list(em: EntityManager, scope: RecordScope, filter: ListFilter): Promise<ListingRow[]> {
    const { where, values } = this.filterSql(scope, filter);
    const order = filter.updatedSince ? ORDER_BY.updated : ORDER_BY[filter.sort];
    values.push(filter.limit, filter.offset);
    return em.query(
      `SELECT ${SELECT_LISTING} FROM listings l WHERE ${where}
       ORDER BY ${order} LIMIT $${values.length - 1} OFFSET $${values.length}`,
      values,
    );
  }

  /** Counts rows by scanning; used only for filters the maintained counts cannot answer. */
  async countMatching(em: EntityManager, scope: RecordScope, filter: ListFilter): Promise<number> {
    const { where, values } = this.filterSql(scope, filter);
    const [row] = await em.query(
      `SELECT count(*)::int AS n FROM listings l WHERE ${where}`,
      values,
    );
    return row.n;
  }

  private filterSql(scope: RecordScope, filter: ListFilter): { where: string; values: unknown[] } {
    const values: unknown[] = [scope.accountId, scope.livemode];
    const where = ['l.account_id = $1', 'l.livemode = $2'];
    if (filter.status) {
      values.push(filter.status);
      where.push(`l.status = $${values.length}`);
    } else {
      where.push(`l.status <> 'REMOVED'`);
    }
    if (filter.externalId !== undefined) {
      values.push(filter.externalId);
      where.push(`l.external_id = $${values.length}`);
    }
    if (filter.updatedSince) {
      values.push(filter.updatedSince);
      where.push(`l.updated_at > $${values.length}`);
    }
    return { where: where.join(' AND '), values };
  }
}
