import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createListingsClient, type ListingsClientOptions } from './client';
import { listAll } from './paging';
import { DEFAULT_RETRY, retryDelayMs } from './retry';
import { ListingsApiError, unwrap } from './wire';

const meta = { requestId: 'r', timestamp: '' };

interface Seen {
  method: string;
  url: string;
  at: number;
  body: string;
  idempotencyKey: string | undefined;
}

type Answer = { status: number; headers?: Record<string, string>; body?: unknown };

/**
 * A service stand-in on a local port: answers each request with the next of `answers` (the last
 * one again once they run out) and notes when each arrived.
 */
async function fakeService(answers: Answer[]) {
  const seen: Seen[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        method: req.method!,
        url: req.url!,
        at: Date.now(),
        body: Buffer.concat(chunks).toString(),
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      });
      const answer = answers[Math.min(seen.length, answers.length) - 1];
      const body = answer.body ?? refusal(answer.status);
      res.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    seen,
    client: (options: Partial<ListingsClientOptions> = {}) =>
      createListingsClient({
        baseUrl: `http://127.0.0.1:${port}`,
        apiKey: 'svc_test_x',
        ...options,
      }),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

function refusal(status: number) {
  const code = status === 429 ? 'RATE_LIMITED' : 'SERVER_ERROR';
  return { success: false, error: { code, message: 'not now' }, meta };
}

const me = { status: 200, body: { success: true, data: { accountId: 'a' }, meta } };

function page(ids: string[], hasMore: boolean): Answer {
  const data = ids.map((id) => ({ id }));
  const pagination = { page: 1, limit: 2, total: 3, pages: 2, hasMore };
  return { status: 200, body: { success: true, data, pagination, meta } };
}

describe('the client waits out 429 and 503 with Retry-After', () => {
  let service: Awaited<ReturnType<typeof fakeService>> | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });

  it('sends a refused call again after the seconds of Retry-After', async () => {
    service = await fakeService([{ status: 429, headers: { 'Retry-After': '1' } }, me]);
    const { data } = unwrap(await service.client().GET('/v1/me'));
    expect(data).toEqual({ accountId: 'a' });
    const [first, second] = service.seen;
    expect(service.seen).toHaveLength(2);
    // the timestamps are the server's, taken after each request arrived
    expect(second.at - first.at).toBeGreaterThanOrEqual(950);
  });

  it('waits until the HTTP date of a 503', async () => {
    // a date has whole seconds: two seconds from now is one to two seconds away
    const at = new Date(Date.now() + 2000).toUTCString();
    service = await fakeService([{ status: 503, headers: { 'Retry-After': at } }, me]);
    unwrap(await service.client().GET('/v1/me'));
    const [first, second] = service.seen;
    expect(service.seen).toHaveLength(2);
    expect(second.at - first.at).toBeGreaterThanOrEqual(900);
  });

  it('gives up after maxRetries and answers the last refusal as before', async () => {
    service = await fakeService([{ status: 429, headers: { 'Retry-After': '0' } }]);
    const result = await service.client().GET('/v1/me');
    expect(() => unwrap(result)).toThrow(ListingsApiError);
    expect(result.response.status).toBe(429);
    expect(service.seen).toHaveLength(1 + DEFAULT_RETRY.maxRetries);
  });

  it('keeps to the bounds it is given, and retries nothing with retry: false', async () => {
    service = await fakeService([{ status: 429, headers: { 'Retry-After': '0' } }]);
    await service.client({ retry: { maxRetries: 2 } }).GET('/v1/me');
    expect(service.seen).toHaveLength(3);
    await service.client({ retry: false }).GET('/v1/me');
    expect(service.seen).toHaveLength(4);
  });

  it('answers at once when Retry-After asks for more than maxWaitMs, or is missing', async () => {
    service = await fakeService([
      { status: 429, headers: { 'Retry-After': '120' } },
      { status: 503 },
      me,
    ]);
    const client = service.client();
    expect((await client.GET('/v1/me')).response.status).toBe(429);
    expect((await client.GET('/v1/me')).response.status).toBe(503);
    expect(service.seen).toHaveLength(2);
  });

  it('sends a POST again after a 429, after a 503 only with an Idempotency-Key', async () => {
    const body = { ids: ['00000000-0000-4000-8000-000000000001'] };
    service = await fakeService([
      { status: 429, headers: { 'Retry-After': '0' } },
      { status: 202, body: { success: true, data: {}, meta } },
      { status: 503, headers: { 'Retry-After': '0' } },
      { status: 503, headers: { 'Retry-After': '0' } },
      { status: 202, body: { success: true, data: {}, meta } },
    ]);
    const client = service.client();
    expect((await client.POST('/v1/listings/bulk/sold', { body })).response.status).toBe(202);
    // a 503 may come from a proxy that passed the request on: without a key it is not repeated
    expect((await client.POST('/v1/listings/bulk/sold', { body })).response.status).toBe(503);
    const keyed = await client.POST('/v1/listings/bulk/sold', {
      body,
      headers: { 'Idempotency-Key': 'k1' },
    });
    expect(keyed.response.status).toBe(202);
    expect(service.seen.map((s) => s.body)).toEqual(Array(5).fill(JSON.stringify(body)));
    expect(service.seen[4].idempotencyKey).toBe('k1');
  });

  it('keeps listAll going through a 429 in the middle of the pages', async () => {
    service = await fakeService([
      page(['l1', 'l2'], true),
      { status: 429, headers: { 'Retry-After': '0' } },
      page(['l3'], false),
    ]);
    const ids: string[] = [];
    for await (const listing of listAll(service.client(), { limit: 2 })) ids.push(listing.id);
    expect(ids).toEqual(['l1', 'l2', 'l3']);
    expect(service.seen.map((s) => new URL(s.url, 'http://x').searchParams.get('page'))).toEqual([
      '1',
      '2',
      '2',
    ]);
  });

  it('stops waiting when the call is aborted', async () => {
    service = await fakeService([{ status: 429, headers: { 'Retry-After': '30' } }]);
    const signal = AbortSignal.timeout(100);
    await expect(service.client().GET('/v1/me', { signal })).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    expect(service.seen).toHaveLength(1);
  });
});

describe('retryDelayMs', () => {
  const answer = (status: number, retryAfter?: string) =>
    new Response(null, { status, headers: retryAfter ? { 'Retry-After': retryAfter } : {} });
  const now = Date.parse('2026-11-29T10:00:00Z');

  it('reads seconds and HTTP dates, a date past as no wait', () => {
    expect(retryDelayMs(answer(429, '7'), DEFAULT_RETRY, now)).toBe(7000);
    expect(retryDelayMs(answer(503, 'Sun, 29 Nov 2026 10:00:03 GMT'), DEFAULT_RETRY, now)).toBe(
      3000,
    );
    expect(retryDelayMs(answer(503, 'Sun, 29 Nov 2026 09:59:00 GMT'), DEFAULT_RETRY, now)).toBe(0);
  });

  it('is undefined for other statuses, an unreadable value, or a wait past the cap', () => {
    expect(retryDelayMs(answer(500, '5'), DEFAULT_RETRY, now)).toBeUndefined();
    expect(retryDelayMs(answer(429, 'soon'), DEFAULT_RETRY, now)).toBeUndefined();
    expect(retryDelayMs(answer(429, '-1'), DEFAULT_RETRY, now)).toBeUndefined();
    expect(retryDelayMs(answer(429, '61'), DEFAULT_RETRY, now)).toBeUndefined();
    expect(retryDelayMs(answer(429), DEFAULT_RETRY, now)).toBeUndefined();
  });
});
