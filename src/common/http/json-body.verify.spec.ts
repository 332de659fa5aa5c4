import { DomainError } from '../errors/domain-error';
import { firstWideObject, MAX_JSON_KEYS, verifyJsonBody } from './json-body.verify';

const keys = (n: number, value: unknown = 1) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]));
const wide = (value: unknown) => firstWideObject(JSON.stringify(value), MAX_JSON_KEYS);

function refusal(body: string | Buffer, encoding = 'utf-8'): DomainError | undefined {
  try {
    verifyJsonBody({} as never, {}, Buffer.isBuffer(body) ? body : Buffer.from(body), encoding);
    return undefined;
  } catch (error) {
    return error as DomainError;
  }
}

describe('firstWideObject', () => {
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
    expect(wide({ a: Array.from({ length: 5000 }, (_, i) => `v${i}`) })).toBeUndefined();
    expect(wide(keys(200, 'say "hi", {b: 1}, \\'))).toBeUndefined();
    expect(wide({ [`a"b{,`]: keys(201) })).toBe('a"b{,');
    // keys spread over several sibling objects are counted per object
    expect(wide({ a: keys(150), b: keys(150) })).toBeUndefined();
  });

  it('stops at the first wide object and shows an overlong key as …', () => {
    expect(wide({ ['x'.repeat(65)]: keys(201), b: keys(300) })).toBe('…');
  });

  it('leaves text nested deeper than MAX_JSON_DEPTH to the depth check', () => {
    expect(firstWideObject('['.repeat(100_000) + ']'.repeat(100_000), 1)).toBeUndefined();
    expect(firstWideObject('[[{"a":1,"b":2}]]', 1)).toBe('[0][0]');
  });

  it('gives no answer on text that is not JSON', () => {
    expect(firstWideObject('{"a": "unterminated', 1)).toBeUndefined();
    expect(firstWideObject('}}]]', 1)).toBeUndefined();
  });
});

describe('verifyJsonBody', () => {
  it('refuses bytes that are not UTF-8, on field body', () => {
    const error = refusal(
      Buffer.concat([Buffer.from('{"title":"a'), Buffer.from([0xff]), Buffer.from('"}')]),
    );
    expect(error?.details).toEqual([{ field: 'body', message: 'The body is not valid UTF-8.' }]);
    // an encoded surrogate (ED A0 80) is not UTF-8 either
    expect(refusal(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]))?.details?.[0].field).toBe('body');
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
});
