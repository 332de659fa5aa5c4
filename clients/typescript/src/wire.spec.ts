import { createListingsClient } from './client';
import { type Listing, ListingsApiError, type ResponseData, unwrap } from './wire';

const meta = { requestId: 'r', timestamp: '' };

/** Compiles only while A and B are the same type. */
const sameType = <A, B extends A>(check: A extends B ? true : false) => check;

/** A client whose every answer is `body` with `status`. */
const answering = (body: unknown, status = 200) =>
  createListingsClient({
    baseUrl: 'http://api.test',
    apiKey: 'svc_test_x',
    fetch: async () =>
      new Response(JSON.stringify(body), {
        status,
        headers: { 'Content-Type': 'application/json' },
      }),
  });

describe('wire', () => {
  it("types an answer's data by the document, required as the envelope says", async () => {
    expect(sameType<ResponseData<'/v1/listings/{id}', 'get'>, Listing>(true)).toBe(true);
    const api = answering({ success: true, data: { id: 'x' }, meta });
    const { data, meta: got } = unwrap(
      await api.GET('/v1/listings/{id}', { params: { path: { id: 'x' } } }),
    );
    // compiles only while `data` is a Listing, not `Listing | undefined`
    const listing: Listing = data;
    expect(listing.id).toBe('x');
    expect(got.requestId).toBe('r');
  });

  it('returns the envelope of a success and throws the error envelope as ListingsApiError', () => {
    const envelope = { success: true as const, data: { id: 'x' }, meta };
    expect(unwrap({ data: envelope, response: new Response(null, { status: 200 }) })).toBe(
      envelope,
    );
    const body = {
      success: false,
      error: { code: 'NOT_FOUND', message: 'Listing not found' },
      meta: { requestId: 'r2', timestamp: '' },
    };
    expect(() => unwrap({ error: body, response: new Response(null, { status: 404 }) })).toThrow(
      expect.objectContaining({
        status: 404,
        code: 'NOT_FOUND',
        message: 'Listing not found',
        requestId: 'r2',
        details: [],
      }),
    );
  });

  it('throws for a 2xx whose body is not the success envelope', async () => {
    const api = answering({ id: 'x' });
    const result = await api.GET('/v1/listings/{id}', { params: { path: { id: 'x' } } });
    expect(() => unwrap(result)).toThrow(
      expect.objectContaining({ status: 200, code: 'HTTP_ERROR', body: { id: 'x' } }),
    );
  });

  it('names an answer that is not the envelope (a proxy’s error page) by its status', () => {
    const error = new ListingsApiError(502, '<html>Bad Gateway</html>');
    expect(error).toMatchObject({
      status: 502,
      code: 'HTTP_ERROR',
      message: 'HTTP 502',
      requestId: undefined,
    });
  });
});
