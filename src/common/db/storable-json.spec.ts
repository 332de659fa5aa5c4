import { storableJson } from './storable-json';

describe('storableJson', () => {
  it('is JSON.stringify for text PostgreSQL can hold, paired surrogates (emoji) included', () => {
    const value = { a: 'Café 😀', b: [1, null, 'x\\u0000'], c: { d: '\ud83d\ude00' } };
    expect(storableJson(value)).toBe(JSON.stringify(value));
  });

  it('replaces U+0000 and lone surrogates with U+FFFD, at any depth', () => {
    const value = {
      id: 'a\u0000b',
      error: { details: [{ field: 'x\ud800', message: '\udfffy' }] },
    };
    expect(JSON.parse(storableJson(value))).toEqual({
      id: 'a\uFFFDb',
      error: { details: [{ field: 'x\uFFFD', message: '\uFFFDy' }] },
    });
    expect(storableJson(value)).not.toMatch(/\\u0000|\\ud[89a-f]/i);
  });
});
