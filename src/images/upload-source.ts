import { ValidationError } from '../common/errors/domain-error';
import type { AddImageDto } from './dto/add-image.dto';

export type ImageSource =
  { kind: 'url'; url: string } | { kind: 'upload'; data: Buffer; field: 'file' | 'base64' };

/** A data: URL's head (`data:image/jpeg;base64,`) is short; a longer one is no image's. */
const MAX_DATA_URL_HEAD = 256;
/** Strict base64 without whitespace: one character class, so the engine checks it without backtracking. */
const PLAIN_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes raw base64 or a data: URL; refuses anything that is not strict base64 (ASCII
 * whitespace aside). Each check is one pass over a value of up to 15 MB.
 */
export function decodeBase64(value: string): Buffer {
  const start = payloadStart(value);
  const payload = start === undefined || start === 0 ? value : value.slice(start);
  if (start === undefined || !isStrictBase64(payload)) {
    throw ValidationError.field(
      'base64',
      'base64 must be base64-encoded image bytes, raw or as a data: URL.',
    );
  }
  // Node's decoder skips the whitespace the check let through.
  return Buffer.from(payload, 'base64');
}

/** Where the base64 starts: after a data: URL's `;base64,` head, or at 0; undefined if malformed. */
function payloadStart(value: string): number | undefined {
  if (!/^data:/i.test(value)) return 0;
  const comma = value.indexOf(',');
  if (comma === -1 || comma > MAX_DATA_URL_HEAD) return undefined;
  return /;base64$/i.test(value.slice(0, comma)) ? comma + 1 : undefined;
}

/** `[A-Za-z0-9+/]`, at most two `=` at the end, ASCII whitespace anywhere; not one character long. */
function isStrictBase64(payload: string): boolean {
  if (PLAIN_BASE64.test(payload)) return payload.length > 0 && payload.length % 4 !== 1;
  let length = 0;
  let padding = 0;
  for (let i = 0; i < payload.length; i++) {
    const c = payload.charCodeAt(i);
    if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) continue;
    if (c === 0x3d /* = */) {
      if (++padding > 2) return false;
    } else if (padding > 0 || !isBase64Digit(c)) return false;
    length++;
  }
  return length > 0 && length % 4 !== 1;
}

function isBase64Digit(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) || // A-Z
    (c >= 0x61 && c <= 0x7a) || // a-z
    (c >= 0x30 && c <= 0x39) || // 0-9
    c === 0x2b || // +
    c === 0x2f // /
  );
}

/**
 * Exactly one of url, base64 or a multipart file; a null source counts as not sent. A multipart
 * body carries its image as the file (and `order`), as the OpenAPI document describes it.
 */
export function imageSourceOf(
  dto: AddImageDto,
  file: Buffer | undefined,
  multipart = false,
): ImageSource {
  for (const field of ['url', 'base64'] as const) {
    if (multipart && dto[field] != null)
      throw ValidationError.field(
        field,
        `${field} is a JSON field: a multipart upload sends the image in the field file.`,
      );
  }
  const given = [dto.url != null, dto.base64 != null, file !== undefined].filter(Boolean).length;
  if (given !== 1) {
    throw ValidationError.field(
      'file',
      'Send exactly one image: a JSON url, a JSON base64, or a multipart file.',
    );
  }
  if (dto.url != null) return { kind: 'url', url: dto.url };
  if (dto.base64 != null)
    return { kind: 'upload', data: decodeBase64(dto.base64), field: 'base64' };
  return { kind: 'upload', data: file!, field: 'file' };
}
