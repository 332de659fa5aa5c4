import { type DataOf, ListingsApiError, unwrap } from './wire';

interface Thing {
  id: string;
}
/** Compiles only while `DataOf` reads `data` out of an envelope and leaves a bare body as it is. */
const sameType = <A, B extends A>(check: A extends B ? true : false) => check;

describe('wire', () => {
  it('types the data the same whether the document describes the envelope or data alone', () => {
    expect(sameType<DataOf<{ success: true; data: Thing; meta: object }>, Thing>(true)).toBe(true);
    expect(sameType<DataOf<Thing>, Thing>(true)).toBe(true);
  });

  it('returns the envelope of a success and throws the error envelope as ListingsApiError', () => {
    const envelope = { success: true, data: { id: 'x' }, meta: { requestId: 'r', timestamp: '' } };
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
