import sharp, { type Metadata, type OutputInfo } from 'sharp';

export type RenditionName = 'thumb' | 'medium' | 'large';

/** The longest side of each rendition, in pixels. */
export const RENDITION_SIZES: Record<RenditionName, number> = {
  thumb: 320,
  medium: 960,
  large: 1600,
};

const RENDITION_NAMES = Object.keys(RENDITION_SIZES) as RenditionName[];
const LARGEST = Math.max(...Object.values(RENDITION_SIZES));

/** The upload limit (image-processor.ts): a one-colour 10000×10000 PNG is small sent, 300 MB decoded. */
const MAX_MEGAPIXELS = 40;
const MAX_INPUT_PIXELS = MAX_MEGAPIXELS * 1_000_000;
const WEBP_QUALITY = 80;

export type SourceFormat = 'jpeg' | 'png' | 'webp' | 'avif';
/** This step's share of the failure reasons; the fetcher owns the others. */
export type RenderFailure = 'not_an_image' | 'too_many_pixels';

export class RenderError extends Error {
  constructor(
    readonly reason: RenderFailure,
    message: string,
  ) {
    super(message);
    this.name = 'RenderError';
  }
}

export interface Rendition {
  data: Buffer;
  width: number;
  height: number;
}

export interface Rendered {
  /** The source's size after its EXIF orientation is applied. */
  width: number;
  height: number;
  format: SourceFormat;
  renditions: Record<RenditionName, Rendition>;
}

/**
 * WebP renditions of a JPEG, PNG, WebP or AVIF source: oriented, without metadata, never upscaled.
 * The source is decoded once, into the large rendition's pixels, and the smaller ones are resized
 * from those: sharp's clone() would share the input bytes but decode them once per clone.
 */
export async function renderRenditions(source: Buffer): Promise<Rendered> {
  const { format, width, height } = await readHeader(source);
  const large = scaledTo(width, height, LARGEST);

  let pixels: { data: Buffer; info: OutputInfo };
  try {
    pixels = await sharp(source, { failOn: 'truncated', limitInputPixels: MAX_INPUT_PIXELS })
      .autoOrient()
      .resize({ ...large, fit: 'fill' })
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (error) {
    throw decodeFailure(error);
  }
  const raw = {
    width: pixels.info.width,
    height: pixels.info.height,
    channels: pixels.info.channels,
  };

  // A failure from here on is not the source's: it is thrown as it is.
  const rendered = await Promise.all(
    RENDITION_NAMES.map(async (name): Promise<Rendition> => {
      const size = scaledTo(width, height, RENDITION_SIZES[name]);
      const pipeline = sharp(pixels.data, { raw });
      const resized =
        size.width === raw.width && size.height === raw.height
          ? pipeline
          : pipeline.resize({ ...size, fit: 'fill' });
      const out = await resized
        .webp({ quality: WEBP_QUALITY })
        .toBuffer({ resolveWithObject: true });
      return { data: out.data, width: out.info.width, height: out.info.height };
    }),
  );
  return {
    width,
    height,
    format,
    renditions: Object.fromEntries(RENDITION_NAMES.map((name, i) => [name, rendered[i]])) as Record<
      RenditionName,
      Rendition
    >,
  };
}

/**
 * The size fitting inside longest×longest, computed from the source so that every rendition has
 * the size a resize of the source itself would give, whichever pixels it is resized from.
 */
function scaledTo(width: number, height: number, longest: number) {
  const scale = Math.min(1, longest / Math.max(width, height));
  return {
    width: Math.max(1, Math.round(width * scale)),
    height: Math.max(1, Math.round(height * scale)),
  };
}

/** The header only: what the content is, and how many pixels it would take decoded. */
async function readHeader(
  source: Buffer,
): Promise<{ format: SourceFormat; width: number; height: number }> {
  let metadata: Metadata;
  try {
    metadata = await sharp(source, { limitInputPixels: false }).metadata();
  } catch {
    throw new RenderError('not_an_image', 'The source is not a decodable image.');
  }
  const format = sourceFormat(metadata);
  if (format === undefined) {
    throw new RenderError(
      'not_an_image',
      `Only JPEG, PNG, WebP and AVIF images are accepted (found ${metadata.format ?? 'unknown'}).`,
    );
  }
  const width = metadata.width ?? 0;
  const height = metadata.height ?? 0;
  if (width === 0 || height === 0) {
    throw new RenderError('not_an_image', 'The source has no size in its header.');
  }
  if (width * height > MAX_INPUT_PIXELS) {
    throw new RenderError(
      'too_many_pixels',
      `The image is larger than ${MAX_MEGAPIXELS} megapixels (${width}×${height}).`,
    );
  }
  // EXIF orientations 5 to 8 swap width and height.
  return { format, ...metadata.autoOrient };
}

/** sharp names AVIF "heif"; a HEIF holding HEVC (HEIC) is not accepted. */
function sourceFormat(metadata: Metadata): SourceFormat | undefined {
  switch (metadata.format) {
    case 'jpeg':
    case 'png':
    case 'webp':
      return metadata.format;
    case 'heif':
      return metadata.compression === 'av1' ? 'avif' : undefined;
    default:
      return undefined;
  }
}

/** The header passed, so a failure here is the pixel limit or damaged image data. */
function decodeFailure(error: unknown): RenderError {
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(message)) {
    return new RenderError(
      'too_many_pixels',
      `The image is larger than ${MAX_MEGAPIXELS} megapixels.`,
    );
  }
  return new RenderError('not_an_image', `The image cannot be decoded: ${message}`);
}
