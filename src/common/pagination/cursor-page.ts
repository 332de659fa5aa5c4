import type { RawJson } from '../http/raw-json';

/** `pagination` of a cursor feed: no page numbers or totals, a cursor to continue from. */
export interface CursorPaginationMeta {
  limit: number;
  hasMore: boolean;
  /** pass as `after` for the next page; null when the page is empty */
  nextCursor: string | null;
}

/** A cursor-feed page; items may be database-rendered JSON text (RawJson), sent as is. */
export class CursorPage<T> {
  constructor(
    readonly items: T[] | RawJson,
    readonly pagination: CursorPaginationMeta,
  ) {}
}
