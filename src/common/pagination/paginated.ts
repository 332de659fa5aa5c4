import type { PaginationMeta } from '../http/envelope';

/** A page of results; the envelope interceptor turns it into `data` + `pagination`. */
export class Paginated<T> {
  readonly pagination: PaginationMeta;

  constructor(
    readonly items: T[],
    page: number,
    limit: number,
    total: number,
  ) {
    const pages = Math.ceil(total / limit);
    this.pagination = { page, limit, total, pages, hasMore: page < pages };
  }

  map<U>(fn: (item: T) => U): Paginated<U> {
    return new Paginated(
      this.items.map(fn),
      this.pagination.page,
      this.pagination.limit,
      this.pagination.total,
    );
  }
}
