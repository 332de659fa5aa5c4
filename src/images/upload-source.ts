import { ValidationError } from '../common/errors/domain-error';
import type { AddImageDto } from './dto/add-image.dto';

export type ImageSource =
  { kind: 'url'; url: string } | { kind: 'upload'; data: Buffer; field: 'file' | 'base64' };

const DATA_URL = /^data:[^;,]*(;[^;,]*)*;base64,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes raw base64 or a data: URL; refuses anything that is not strict base64. */
export function decodeBase64(value: string): Buffer {
  const payload = value.replace(DATA_URL, '').replace(/\s+/g, '');
  if (payload.length === 0 || payload.length % 4 === 1 || !BASE64.test(payload)) {
    throw ValidationError.field(
      'base64',
      'base64 must be base64-encoded image bytes, raw or as a data: URL.',
    );
  }
  return Buffer.from(payload, 'base64');
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
