import type { ListingsClient } from './client';
import type { paths } from './schema';
import { wait } from './wait';
import {
  type CursorPagination,
  type FeedEvent,
  type FetchResult,
  type ImportResult,
  type Listing,
  type PagePagination,
  unwrap,
} from './wire';

/** A page as the document describes it, before `unwrap` makes `data` required. */
interface PageBody<T, P> {
  success: true;
  data?: T[];
  pagination: P;
}

/**
 * Every item of a page-numbered list (listings, imports, deliveries), page after page while
 * `hasMore`: `paginate((page) => api.GET('/v1/webhooks/{id}/deliveries', …page…))` yields each
 * `Delivery`, typed by the document.
 */
export async function* paginate<T>(
  fetchPage: (page: number) => Promise<FetchResult<PageBody<T, PagePagination>>>,
): AsyncGenerator<T> {
  for (let page = 1; ; page++) {
    const body = unwrap(await fetchPage(page));
    yield* body.data;
    if (!body.pagination.hasMore || body.data.length === 0) return;
  }
}

/** Every item of a cursor list (import results), following `nextCursor` while `hasMore`. */
export async function* cursorAll<T>(
  fetchPage: (after: string | undefined) => Promise<FetchResult<PageBody<T, CursorPagination>>>,
): AsyncGenerator<T> {
  let after: string | undefined;
  for (;;) {
    const body = unwrap(await fetchPage(after));
    yield* body.data;
    if (!body.pagination.hasMore || !body.pagination.nextCursor) return;
    after = body.pagination.nextCursor;
  }
}

type Query<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } }
  ? NonNullable<Q>
  : never;

export type ListAllQuery = Partial<Omit<Query<'/v1/listings'>, 'page'>>;

/** Every listing the query matches, 100 per request unless `limit` says otherwise. */
export function listAll(client: ListingsClient, query: ListAllQuery = {}): AsyncGenerator<Listing> {
  const { limit = 100, ...filters } = query;
  return paginate((page) =>
    client.GET('/v1/listings', { params: { query: { ...filters, page, limit } } }),
  );
}

export type ImportResultsQuery = Partial<Omit<Query<'/v1/imports/{id}/results'>, 'after'>>;

/** Every result of an import, in line order, removals last. */
export function importResults(
  client: ListingsClient,
  importId: string,
  query: ImportResultsQuery = {},
): AsyncGenerator<ImportResult> {
  const { limit = 1000, ...filters } = query;
  return cursorAll((after) =>
    client.GET('/v1/imports/{id}/results', {
      params: { path: { id: importId }, query: { ...filters, limit, ...(after ? { after } : {}) } },
    }),
  );
}

export interface FollowEventsOptions {
  /** the id of the last event already processed; omitted: from the oldest event kept */
  after?: string;
  types?: Query<'/v1/events'>['types'];
  listingId?: string;
  /** page size, 1–100 (default 100) */
  limit?: number;
  /** false: stop at the end of the feed; true (default): keep polling for new events */
  follow?: boolean;
  /** the wait between polls once up to date (default 1000 ms) */
  pollIntervalMs?: number;
  /** ends the iteration (quietly) */
  signal?: AbortSignal;
}

/**
 * The account's events in feed order, each once. The cursor moves only past events yielded, so
 * an empty page (whose `nextCursor` is null) never sends the reader back to the start. Persist
 * `event.id` after handling an event and pass it as `after` to resume. A cursor past retention
 * is refused (ListingsApiError, 400 on `after`): re-synchronise from `GET /v1/listings`.
 */
export async function* followEvents(
  client: ListingsClient,
  {
    after,
    types,
    listingId,
    limit = 100,
    follow = true,
    pollIntervalMs = 1000,
    signal,
  }: FollowEventsOptions = {},
): AsyncGenerator<FeedEvent> {
  let cursor = after;
  while (!signal?.aborted) {
    const request = client.GET('/v1/events', {
      params: {
        query: {
          limit,
          ...(cursor ? { after: cursor } : {}),
          ...(types ? { types } : {}),
          ...(listingId ? { listingId } : {}),
        },
      },
      // the service reads `types` as one comma-separated value
      querySerializer: { array: { style: 'form', explode: false } },
      signal,
    });
    let result: Awaited<typeof request>;
    try {
      result = await request;
    } catch (error) {
      if (signal?.aborted) return;
      throw error;
    }
    const page = unwrap(result);
    for (const event of page.data) {
      yield event;
      cursor = event.id;
    }
    if (page.pagination.hasMore) continue;
    if (!follow) return;
    await wait(pollIntervalMs, signal);
  }
}
