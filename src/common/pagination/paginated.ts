import { PAGE_SIZE_MAX } from '../api-limits';
import type { PaginationMeta } from '../http/envelope';
import { RawJson } from '../http/raw-json';

/** A page of results; items may be a database-rendered JSON array (RawJson), sent as is. */
export class Paginated<T> {
  readonly pagination: PaginationMeta;

  constructor(
    readonly items: T[] | RawJson,
    page: number,
    limit: number,
    total: number,
  ) {
    const pages = Math.ceil(total / limit);
    this.pagination = { page, limit, total, pages, hasMore: page < pages };
  }

  map<U>(fn: (item: T) => U): Paginated<U> {
    if (this.items instanceof RawJson) throw new Error('A page of rendered JSON cannot be mapped');
    return new Paginated(
      this.items.map(fn),
      this.pagination.page,
      this.pagination.limit,
      this.pagination.total,
    );
  }
}

/**
 * A list answered whole (reference data, an account's few webhook endpoints): one page of the
 * largest size, so it carries `pagination` as every list answer does.
 */
export function wholeList<T>(items: T[]): Paginated<T> {
  if (items.length > PAGE_SIZE_MAX) throw new Error(`A whole list holds at most ${PAGE_SIZE_MAX}`);
  return new Paginated(items, 1, PAGE_SIZE_MAX, items.length);
}
