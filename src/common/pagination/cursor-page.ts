import type { RawJson } from '../http/raw-json';

/** `pagination` of a cursor feed: no page numbers or totals, a cursor to continue from. */
export interface CursorPaginationMeta {
  limit: number;
  hasMore: boolean;
  /** pass as `after` for the next page; null when the page is empty */
  nextCursor: string | null;
}

/**
 * A page of a cursor feed; the envelope interceptor turns it into `data` + `pagination`. Its
 * items may be JSON text rendered by the database (see RawJson), sent without re-serialising.
 */
export class CursorPage<T> {
  constructor(
    readonly items: T[] | RawJson,
    readonly pagination: CursorPaginationMeta,
  ) {}
}
