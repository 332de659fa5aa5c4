import { DomainError } from '../errors/domain-error';
import { aListing } from '../../../test/support/listing-builder';
import { jsonShapeFault, MAX_JSON_DEPTH, verifyJsonBody } from './json-body.verify';

const keys = (n: number, value: unknown = 1) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]));
const fault = (text: string, limits?: { keys: number; items: number; values?: number }) =>
  jsonShapeFault(text, limits && { values: 20_000, ...limits });
/** The path of the first object wider than 200 keys, if that is the fault. */
const wide = (value: unknown) => {
  const found = fault(JSON.stringify(value));
  return found?.kind === 'keys' ? found.path : found && `${found.kind} at ${found.path}`;
};

function refusal(body: string | Buffer, encoding = 'utf-8'): DomainError | undefined {
  try {
    verifyJsonBody({} as never, {}, Buffer.isBuffer(body) ? body : Buffer.from(body), encoding);
    return undefined;
  } catch (error) {
    return error as DomainError;
  }
}

describe('jsonShapeFault', () => {
  it('lets 200 keys through and names the first object with 201', () => {
    expect(wide(keys(200))).toBeUndefined();
    expect(wide(keys(201))).toBe('body');
    expect(wide({ title: 'x', attributes: keys(200) })).toBeUndefined();
    expect(wide({ title: 'x', attributes: keys(201) })).toBe('attributes');
  });

  it('names nested objects and array items by their path', () => {
    expect(wide({ items: [{}, {}, {}, { attributes: keys(201) }] })).toBe('items[3].attributes');
    expect(wide({ items: [1, [2, keys(201)]] })).toBe('items[1][1]');
    expect(wide([keys(3), keys(201)])).toBe('[1]');
  });

  it('counts keys, not strings: values, array elements and escaped quotes do not count', () => {
    expect(wide({ a: Array.from({ length: 100 }, (_, i) => `v${i}, {"k": 1}`) })).toBeUndefined();
    expect(wide(keys(200, 'say "hi", {b: 1}, \\'))).toBeUndefined();
    expect(wide({ [`a"b{,`]: keys(201) })).toBe('a"b{,');
    // keys spread over several sibling objects are counted per object
    expect(wide({ a: keys(150), b: keys(150) })).toBeUndefined();
  });

  it('stops at the first wide object and shows an overlong key as …', () => {
    expect(wide({ ['x'.repeat(65)]: keys(201), b: keys(300) })).toBe('…');
  });

  it('names the first array longer than 100 items, counting items, not commas in strings', () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => i);
    expect(fault(JSON.stringify({ ids: items(100) }))).toBeUndefined();
    expect(fault(JSON.stringify({ ids: items(101) }))).toEqual({ kind: 'items', path: 'ids' });
    expect(fault(JSON.stringify({ items: [{}, { images: items(101) }] }))).toEqual({
      kind: 'items',
      path: 'items[1].images',
    });
    expect(fault(JSON.stringify(items(101)))).toEqual({ kind: 'items', path: 'body' });
    expect(fault(JSON.stringify({ a: ['x,y,z'.repeat(100)], b: [[], [], {}] }))).toBeUndefined();
    expect(fault('[1,2,3]', { keys: 200, items: 3 })).toBeUndefined();
    expect(fault('[1,2,3,4]', { keys: 200, items: 3 })).toEqual({ kind: 'items', path: 'body' });
  });

  it('stops at the first fault: a 10 MB array costs a scan of its first items only', () => {
    const huge = `{"imageIds":[${'0,'.repeat(5_000_000)}0]}`;
    expect(fault(huge)).toEqual({ kind: 'items', path: 'imageIds' });
  });

  it('refuses a body of more than 20,000 values in all, each container within the other limits', () => {
    // 99 arrays of 99 empty objects each, nested in 3 levels: every count small but the total.
    const row = `[${Array.from({ length: 99 }, () => '{}').join(',')}]`;
    const grid = `[${Array.from({ length: 99 }, () => row).join(',')}]`;
    expect(fault(`{"x":[${grid},${grid},${grid}]}`)).toEqual({ kind: 'values', path: 'body' });
    expect(fault(`{"x":${grid}}`)).toBeUndefined();
    // The array and its five numbers: six values; empty containers hold none.
    expect(fault('[1,2,3,4,5]', { keys: 200, items: 100, values: 6 })).toBeUndefined();
    expect(fault('[ {}, [ ], {"a": [1]} ]', { keys: 200, items: 100, values: 6 })).toBeUndefined();
    expect(fault('[1,2,3,4,5]', { keys: 200, items: 100, values: 5 })).toEqual({
      kind: 'values',
      path: 'body',
    });
  });

  it('lets the largest valid body through: a bulk of 50 listings with 30 images each', () => {
    const item = aListing()
      .with({
        images: Array.from({ length: 30 }, (_, order) => ({
          url: `https://img.example.com/${order}.jpg`,
          order,
        })),
      })
      .build();
    expect(
      fault(JSON.stringify({ items: Array.from({ length: 50 }, () => item) })),
    ).toBeUndefined();
  });

  it('refuses containers nested deeper than MAX_JSON_DEPTH, at body', () => {
    const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);
    expect(fault(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(fault(nested(MAX_JSON_DEPTH + 1))).toEqual({ kind: 'depth', path: 'body' });
    expect(fault('['.repeat(100_000) + ']'.repeat(100_000))).toEqual({
      kind: 'depth',
      path: 'body',
    });
    expect(fault(`{"a":${'{"b":'.repeat(40)}1${'}'.repeat(41)}`)?.kind).toBe('depth');
    // brackets inside strings do not nest
    expect(fault(JSON.stringify({ a: '['.repeat(100) }))).toBeUndefined();
    expect(fault('[[{"a":1,"b":2}]]', { keys: 1, items: 100 })).toEqual({
      kind: 'keys',
      path: '[0][0]',
    });
  });

  it('gives no answer on text that is not JSON', () => {
    expect(fault('{"a": "unterminated', { keys: 1, items: 1 })).toBeUndefined();
    expect(fault('}}]]', { keys: 1, items: 1 })).toBeUndefined();
  });
});

describe('verifyJsonBody', () => {
  it('lets bytes that are not UTF-8 through to be marked, unless they cannot be told apart', () => {
    const latin1 = (text: string) => Buffer.from(text, 'latin1');
    expect(refusal(latin1('{"title":"Fåtölj"}'))).toBeUndefined();
    // an encoded surrogate (ED A0 80) is not UTF-8 either, and is marked too
    expect(refusal(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]))).toBeUndefined();
    // beside the sender's own U+FFFD, or after an escaped high surrogate: the body as a whole
    for (const body of [
      Buffer.concat([Buffer.from('{"a":"\uFFFD","b":"'), latin1('å"}')]),
      Buffer.concat([Buffer.from('{"a":"\\ud83d'), latin1('å"}')]),
    ]) {
      const error = refusal(body);
      expect(error?.details).toEqual([{ field: 'body', message: 'The body is not valid UTF-8.' }]);
    }
  });

  it('accepts UTF-8 text, and UTF-16 when the charset says so', () => {
    expect(refusal('{"title":"Fåtölj 💺"}')).toBeUndefined();
    expect(refusal(Buffer.from('{"title":"Fåtölj"}', 'utf16le'), 'utf-16le')).toBeUndefined();
    expect(refusal(Buffer.from([0x00, 0xd8]), 'utf-16le')?.details?.[0].field).toBe('body');
  });

  it('refuses a wide object with one detail naming it', () => {
    const error = refusal(JSON.stringify({ attributes: keys(100_000) }));
    expect(error?.details).toEqual([
      { field: 'attributes', message: 'attributes has more than 200 keys.' },
    ]);
    expect(refusal(JSON.stringify(keys(201)))?.message).toBe('The body has more than 200 keys.');
  });

  it('scans the text the parser reads: UTF-16 big-endian without a byte order mark included', () => {
    const deep = '['.repeat(40) + ']'.repeat(40);
    const bigEndian = Buffer.from(deep, 'utf16le').swap16();
    expect(refusal(bigEndian, 'utf-16')?.details).toEqual([
      { field: 'body', message: 'The body is nested more than 32 levels deep.' },
    ]);
    expect(refusal(Buffer.from(deep, 'utf16le'), 'utf-16le')?.details?.[0].field).toBe('body');
  });

  it('takes valid UTF-16 in either byte order, and refuses an unpaired surrogate in it', () => {
    const text = '{"title":"Straße Übung Ø 💺"}';
    const bigEndian = Buffer.from(text, 'utf16le').swap16();
    expect(refusal(bigEndian, 'utf-16')).toBeUndefined();
    expect(refusal(bigEndian, 'utf-16be')).toBeUndefined();
    expect(refusal(Buffer.from(text, 'utf16le'), 'utf-16')).toBeUndefined();
    const lone = Buffer.from('{"title":"a\ud800b"}', 'utf16le');
    expect(refusal(lone, 'utf-16le')?.details).toEqual([
      { field: 'body', message: 'The body is not valid UTF-16LE.' },
    ]);
    expect(refusal(Buffer.from(lone).swap16(), 'utf-16be')?.details?.[0].field).toBe('body');
  });

  it('refuses a long array and a deep body, each with one detail', () => {
    const ids = Array.from({ length: 101 }, () => 'x');
    expect(refusal(JSON.stringify({ imageIds: ids }))?.details).toEqual([
      { field: 'imageIds', message: 'imageIds has more than 100 items.' },
    ]);
    expect(refusal('['.repeat(33) + ']'.repeat(33))?.details).toEqual([
      { field: 'body', message: 'The body is nested more than 32 levels deep.' },
    ]);
  });
});
