import { Injectable } from '@nestjs/common';
import sharp from 'sharp';
import { ValidationError } from '../common/errors/domain-error';

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
const MAX_DIMENSION = 4096;
/** Refuses decompression bombs before decoding them. */
const MAX_INPUT_PIXELS = 100_000_000;

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
 */
@Injectable()
export class ImageProcessor {
  async process(input: Buffer, field: string): Promise<ProcessedImage> {
    if (input.length === 0) throw ValidationError.field(field, 'The image is empty.');
    if (input.length > MAX_UPLOAD_BYTES)
      throw ValidationError.field(field, 'The image is larger than 10 MB.');
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

  private async detect(input: Buffer, field: string): Promise<Format> {
    let format: string | undefined;
    try {
      format = (await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS }).metadata()).format;
    } catch {
      format = undefined;
    }
    if (format === undefined || !(format in FORMATS)) {
      throw ValidationError.field(field, 'Only JPEG, PNG and WebP images are accepted.');
    }
    return format as Format;
  }
}
