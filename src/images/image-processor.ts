import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import sharp, { Metadata } from 'sharp';
import pLimit, { type Limit } from 'p-limit';
import { ValidationError } from '../common/errors/domain-error';
import type { AllConfig } from '../platform/config';

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
const MAX_DIMENSION = 4096;
/**
 * Refuses decompression bombs before decoding them: a 10000×10000 PNG of one colour is some
 * 50 KB on the wire and 300 MB decoded. 40 megapixels is more than any phone camera takes.
 */
const MAX_MEGAPIXELS = 40;
const MAX_INPUT_PIXELS = MAX_MEGAPIXELS * 1_000_000;

const FORMATS = {
  jpeg: { contentType: 'image/jpeg', extension: 'jpg' },
  png: { contentType: 'image/png', extension: 'png' },
  webp: { contentType: 'image/webp', extension: 'webp' },
} as const;
type Format = keyof typeof FORMATS;

export interface ProcessedImage {
  data: Buffer;
  contentType: string;
  extension: string;
}

/**
 * Accepts JPEG, PNG and WebP recognised by their content (never the file name or declared type),
 * then re-encodes them: orientation applied, every piece of metadata (EXIF, GPS, XMP, ICC)
 * dropped, colours in sRGB, at most 4096 px on a side.
 *
 * Decoding runs on libuv's small thread pool, which file writes and DNS lookups share, so only
 * IMAGE_DECODE_CONCURRENCY uploads are decoded at once; the others wait their turn instead of
 * taking every thread.
 */
@Injectable()
export class ImageProcessor {
  private readonly decoding: Limit;

  constructor(config: ConfigService<AllConfig, true>) {
    this.decoding = pLimit(config.get('storage.decodeConcurrency', { infer: true }));
  }

  async process(input: Buffer, field: string): Promise<ProcessedImage> {
    if (input.length === 0) throw ValidationError.field(field, 'The image is empty.');
    if (input.length > MAX_UPLOAD_BYTES)
      throw ValidationError.field(field, 'The image is larger than 10 MB.');
    return this.decoding(() => this.reencode(input, field));
  }

  private async reencode(input: Buffer, field: string): Promise<ProcessedImage> {
    const format = await this.detect(input, field);
    try {
      const pipeline = sharp(input, { failOn: 'truncated', limitInputPixels: MAX_INPUT_PIXELS })
        .rotate()
        .resize({
          width: MAX_DIMENSION,
          height: MAX_DIMENSION,
          fit: 'inside',
          withoutEnlargement: true,
        })
        .toColourspace('srgb');
      const encoded =
        format === 'jpeg'
          ? pipeline.jpeg({ quality: 85, mozjpeg: true })
          : format === 'png'
            ? pipeline.png({ compressionLevel: 8 })
            : pipeline.webp({ quality: 85 });
      return { data: await encoded.toBuffer(), ...FORMATS[format] };
    } catch {
      throw ValidationError.field(
        field,
        'The image is damaged or truncated and cannot be decoded.',
      );
    }
  }

  /** Reads the header only: the format, and the size the image would take decoded. */
  private async detect(input: Buffer, field: string): Promise<Format> {
    let metadata: Metadata | undefined;
    try {
      metadata = await sharp(input, { limitInputPixels: false }).metadata();
    } catch {
      metadata = undefined;
    }
    if (metadata?.format === undefined || !(metadata.format in FORMATS)) {
      throw ValidationError.field(field, 'Only JPEG, PNG and WebP images are accepted.');
    }
    if ((metadata.width ?? 0) * (metadata.height ?? 0) > MAX_INPUT_PIXELS) {
      throw ValidationError.field(
        field,
        `The image is larger than ${MAX_MEGAPIXELS} megapixels (${metadata.width}×${metadata.height}).`,
      );
    }
    return metadata.format as Format;
  }
}
