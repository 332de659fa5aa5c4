import { isUtf8 } from 'node:buffer';

/**
 * What a byte sequence that is not UTF-8 becomes in text: a lone surrogate, which every text field
 * refuses by its own name, as it refuses one sent escaped (`\udcff`).
 */
export const NOT_UTF8_MARK = '\uDCFF';

/** Bytes checked at a time; a window with invalid bytes is decoded in pieces. */
const WINDOW_BYTES = 64 * 1024;
const PIECE_BYTES = 1024;
/** Pieces with invalid bytes beyond which the text is refused whole: junk costs little. */
const MAX_INVALID_PIECES = 64;

/** U+FFFD in UTF-8: the sender's own cannot be told apart from the decoder's replacements. */
const REPLACEMENT_BYTES = Buffer.from('\uFFFD');

/** An escaped high surrogate right before a mark: the two would parse as one valid character. */
const ESCAPED_HIGH_SURROGATE_BEFORE_MARK = new RegExp(
  `\\\\u[dD][89abAB][0-9a-fA-F]{2}${NOT_UTF8_MARK}`,
);

/**
 * Bytes that are not UTF-8 as text, each invalid sequence replaced by NOT_UTF8_MARK, so that the
 * caller can fail only the field (or the bulk item, or the import line) holding it. Undefined when
 * the marks could not be placed unambiguously (beside the sender's own U+FFFD, or after an escaped
 * high surrogate they would pair with), or when there are too many to be worth it.
 */
export function markInvalidUtf8(bytes: Uint8Array): string | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: string[] = [];
  let invalid = 0;
  for (let start = 0; start < buf.length;) {
    const end = pieceEnd(buf, start + WINDOW_BYTES);
    const window = buf.subarray(start, end);
    if (isUtf8(window)) parts.push(window.toString('utf8'));
    else {
      for (let at = 0; at < window.length;) {
        const to = pieceEnd(window, at + PIECE_BYTES);
        const piece = window.subarray(at, to);
        if (isUtf8(piece)) parts.push(piece.toString('utf8'));
        else if (++invalid > MAX_INVALID_PIECES || piece.includes(REPLACEMENT_BYTES)) return;
        else parts.push(piece.toString('utf8').replaceAll('\uFFFD', NOT_UTF8_MARK));
        at = to;
      }
    }
    start = end;
  }
  const text = parts.join('');
  return ESCAPED_HIGH_SURROGATE_BEFORE_MARK.test(text) ? undefined : text;
}

/**
 * Where a piece may end at or after `at` without cutting a valid sequence: before a byte that is
 * not a continuation byte, or after three continuation bytes (no valid sequence spans a fourth).
 */
function pieceEnd(buf: Buffer, at: number): number {
  let end = Math.min(at, buf.length);
  for (let k = 0; k < 3 && end < buf.length && (buf[end] & 0xc0) === 0x80; k++) end++;
  return end;
}
