import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import sharp, { Metadata } from 'sharp';
import pLimit, { type Limit } from 'p-limit';
import { ValidationError } from '../common/errors/domain-error';
import type { AllConfig } from '../platform/config';

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
const MAX_DIMENSION = 4096;
/** Above any phone camera; a one-colour 10000×10000 PNG is ~50 KB sent but 300 MB decoded. */
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
 * JPEG, PNG and WebP by content, re-encoded without metadata. Only IMAGE_DECODE_CONCURRENCY decode
 * at once: libuv's small thread pool is shared with file writes and DNS lookups.
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
