import { createListingsClient } from './client';
import { followEvents, importResults, listAll } from './paging';
import { ListingsApiError } from './wire';

const meta = { requestId: 'r', timestamp: '2026-01-01T00:00:00.000Z' };

/** A client whose fetch answers from `answer` and records each request's URL. */
function clientAnswering(answer: (url: URL, n: number) => unknown, status = 200) {
  const requests: Request[] = [];
  const client = createListingsClient({
    baseUrl: 'http://api.test/',
    apiKey: 'svc_test_abc',
    fetch: async (request) => {
      requests.push(request);
      const body = answer(new URL(request.url), requests.length);
      return new Response(JSON.stringify(body), {
        status,
        headers: { 'Content-Type': 'application/json' },
      });
    },
  });
  const urls = () => requests.map((r) => new URL(r.url));
  return { client, requests, urls };
}

async function collect<T>(iterator: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterator) items.push(item);
  return items;
}

const event = (id: string) => ({
  id,
  event: 'listing.created',
  timestamp: '',
  livemode: false,
  data: {},
});
const cursorPage = (ids: string[], hasMore: boolean) => ({
  success: true,
  data: ids.map(event),
  pagination: { limit: 100, hasMore, nextCursor: ids.at(-1) ?? null },
  meta,
});

describe('listAll', () => {
  it('reads page after page while hasMore, with the key and the filters', async () => {
    const { client, requests, urls } = clientAnswering((url) => {
      const page = Number(url.searchParams.get('page'));
      return {
        success: true,
        data: [{ id: `a${page}` }, { id: `b${page}` }],
        pagination: { page, limit: 2, total: 6, pages: 3, hasMore: page < 3 },
        meta,
      };
    });
    const ids = (await collect(listAll(client, { limit: 2, status: 'ACTIVE' }))).map((l) => l.id);
    expect(ids).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
    expect(urls().map((u) => u.pathname + u.search)).toEqual([
      '/v1/listings?status=ACTIVE&page=1&limit=2',
      '/v1/listings?status=ACTIVE&page=2&limit=2',
      '/v1/listings?status=ACTIVE&page=3&limit=2',
    ]);
    expect(requests[0].headers.get('authorization')).toBe('Bearer svc_test_abc');
  });

  it('throws the error envelope as a ListingsApiError', async () => {
    const { client } = clientAnswering(
      () => ({
        success: false,
        error: {
          code: 'VALIDATION_ERROR',
          message: 'limit must not be greater than 100',
          details: [{ field: 'limit', message: 'limit must not be greater than 100' }],
        },
        meta,
      }),
      400,
    );
    const error = await collect(listAll(client, { limit: 101 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ListingsApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'VALIDATION_ERROR',
      requestId: 'r',
      details: [{ field: 'limit' }],
    });
  });
});

describe('importResults', () => {
  it('follows nextCursor until hasMore is false', async () => {
    const { client, urls } = clientAnswering((url) =>
      url.searchParams.get('after') === '2'
        ? cursorPage(['3'], false)
        : cursorPage(['1', '2'], true),
    );
    const lines = await collect(importResults(client, 'imp-1', { outcome: 'failed' }));
    expect(lines.map((r) => (r as unknown as { id: string }).id)).toEqual(['1', '2', '3']);
    expect(urls().map((u) => u.pathname + u.search)).toEqual([
      '/v1/imports/imp-1/results?outcome=failed&limit=1000',
      '/v1/imports/imp-1/results?outcome=failed&limit=1000&after=2',
    ]);
  });
});

describe('followEvents', () => {
  it('keeps its cursor across empty pages and yields each event once', async () => {
    // e1 e2 (more), e3 (end), empty, empty, e4, then the test stops following
    const script = [
      cursorPage(['e1', 'e2'], true),
      cursorPage(['e3'], false),
      cursorPage([], false),
      cursorPage([], false),
      cursorPage(['e4'], false),
    ];
    const { client, urls } = clientAnswering((_url, n) => script[n - 1] ?? cursorPage([], false));
    const controller = new AbortController();
    const seen: string[] = [];
    for await (const e of followEvents(client, {
      pollIntervalMs: 0,
      signal: controller.signal,
      types: ['listing.created', 'listing.sold'],
    })) {
      seen.push(e.id);
      if (e.id === 'e4') controller.abort();
    }
    expect(seen).toEqual(['e1', 'e2', 'e3', 'e4']);
    expect(urls().map((u) => u.searchParams.get('after'))).toEqual([null, 'e2', 'e3', 'e3', 'e3']);
    expect(urls()[0].searchParams.get('types')).toBe('listing.created,listing.sold');
  });

  it('starts after the given cursor and, without follow, stops at the end of the feed', async () => {
    const { client, urls } = clientAnswering(() => cursorPage([], false));
    expect(await collect(followEvents(client, { after: 'e9', follow: false }))).toEqual([]);
    expect(urls().map((u) => u.searchParams.get('after'))).toEqual(['e9']);
  });
});
