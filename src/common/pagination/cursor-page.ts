/** `pagination` of a cursor feed: no page numbers or totals, a cursor to continue from. */
export interface CursorPaginationMeta {
  limit: number;
  hasMore: boolean;
  /** pass as `after` for the next page; null when the page is empty */
  nextCursor: string | null;
}

/** A page of a cursor feed; the envelope interceptor turns it into `data` + `pagination`. */
export class CursorPage<T> {
  readonly pagination: CursorPaginationMeta;

  constructor(
    readonly items: T[],
    limit: number,
    hasMore: boolean,
    cursorOf: (item: T) => string,
  ) {
    const last = items.at(-1);
    this.pagination = { limit, hasMore, nextCursor: last === undefined ? null : cursorOf(last) };
  }
}
