import { markInvalidUtf8, NOT_UTF8_MARK } from './invalid-utf8';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

describe('markInvalidUtf8', () => {
  it('marks each invalid sequence in place and keeps the valid text around it', () => {
    const text = markInvalidUtf8(bytes('{"t":"F', [0xe5], 't', [0xf6], 'lj 💺"}'));
    expect(text).toBe(`{"t":"F${NOT_UTF8_MARK}t${NOT_UTF8_MARK}lj 💺"}`);
    expect(JSON.parse(text!).t.isWellFormed()).toBe(false);
    // an encoded surrogate and a truncated sequence are not UTF-8 either
    expect(markInvalidUtf8(bytes('"a', [0xed, 0xa0, 0x80], 'b', [0xe2, 0x82], '"'))).toMatch(
      new RegExp(`^"a${NOT_UTF8_MARK}+b${NOT_UTF8_MARK}"$`),
    );
  });

  it('leaves the mark lone: no escaped high surrogate before it, no U+FFFD of the sender', () => {
    // `\ud83d` followed by the mark would parse as one valid character
    expect(markInvalidUtf8(bytes('"\\ud83d', [0xff], '"'))).toBeUndefined();
    expect(markInvalidUtf8(bytes('"\\uDBFF', [0xff], '"'))).toBeUndefined();
    expect(markInvalidUtf8(bytes('"\ufffd', [0xff], '"'))).toBeUndefined();
    // an escaped low surrogate or an escaped backslash before it pairs with nothing
    expect(markInvalidUtf8(bytes('"\\udc00', [0xff], '"'))).toBe(`"\\udc00${NOT_UTF8_MARK}"`);
    expect(markInvalidUtf8(bytes('"\\\\', [0xff], '"'))).toBe(`"\\\\${NOT_UTF8_MARK}"`);
  });

  it('marks a stray byte deep in a large text; refuses junk whole', () => {
    const large = Buffer.concat([Buffer.from('{"å":"'.repeat(400_000)), Buffer.from([0xe5])]);
    const marked = markInvalidUtf8(large)!;
    // compared in parts: a failure should not print 2 MB
    expect([marked.length, marked.indexOf(NOT_UTF8_MARK), marked.slice(-7)]).toEqual([
      2_400_001,
      2_400_000,
      `{"å":"${NOT_UTF8_MARK}`,
    ]);
    // a few invalid bytes in many places are each marked
    const spread = Buffer.concat(
      Array.from({ length: 64 }, () =>
        Buffer.concat([Buffer.alloc(1500, 'a'), Buffer.from([0xff])]),
      ),
    );
    expect(markInvalidUtf8(spread)?.split(NOT_UTF8_MARK)).toHaveLength(65);
    // beyond 64 pieces of 1 KB with invalid bytes, the text is not worth marking
    expect(
      markInvalidUtf8(Buffer.concat([spread, Buffer.alloc(1500, 'a'), Buffer.from([0xff])])),
    ).toBeUndefined();
    expect(markInvalidUtf8(Buffer.alloc(15e6, 0x80))).toBeUndefined();
  });
});
