import { ApiProperty } from '@nestjs/swagger';
import type { Condition, ListingStatus } from '../listing.constants';

export const IMAGE_STATUSES = ['pending', 'ready', 'failed'] as const;
export type ImageStatus = (typeof IMAGE_STATUSES)[number];

/** Why an image failed; docs/api.md says what an integrator does about each. */
export const IMAGE_FAILURE_REASONS = [
  'unreachable',
  'http_error',
  'timeout',
  'too_large',
  'not_an_image',
  'too_many_pixels',
  'blocked_address',
  'unsupported_scheme',
  'too_many_redirects',
] as const;
export type ImageFailureReason = (typeof IMAGE_FAILURE_REASONS)[number];

/** The hosted renditions of a ready image: WebP, longest side 320, 960 and 1600 (never upscaled). */
export class ImageVariants {
  @ApiProperty({ format: 'uri' })
  thumb: string;
  @ApiProperty({ format: 'uri' })
  medium: string;
  @ApiProperty({ format: 'uri' })
  large: string;
}

export class ImageError {
  @ApiProperty({ enum: IMAGE_FAILURE_REASONS })
  reason: ImageFailureReason;
  @ApiProperty()
  message: string;
}

export class ImageResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;
  /** the URL as given, or the hosted upload */
  @ApiProperty({ format: 'uri' })
  url: string;
  /** stored position; 0 is the primary image */
  @ApiProperty({ type: 'integer', minimum: 0 })
  order: number;
  /** processing: pending until the renditions exist (ready) or the image cannot be had (failed) */
  @ApiProperty({ enum: IMAGE_STATUSES })
  status: ImageStatus;
  /** of the source, after its orientation is applied; null until ready */
  @ApiProperty({ type: 'integer', nullable: true })
  width: number | null;
  @ApiProperty({ type: 'integer', nullable: true })
  height: number | null;
  /** null until ready */
  @ApiProperty({ type: () => ImageVariants, nullable: true })
  variants: ImageVariants | null;
  /** null unless failed */
  @ApiProperty({ type: () => ImageError, nullable: true })
  error: ImageError | null;
}

export class ListingResponse {
  id: string;
  externalId: string | null;
  title: string;
  description: string;
  price: number;
  currency: 'SEK';
  condition: Condition;
  categorySlug: string;
  locationLan: string;
  locationKommun: string;
  phone: string | null;
  attributes: Record<string, unknown>;
  images: ImageResponse[];
  status: ListingStatus;
  livemode: boolean;
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
  expiresAt: string | null;
  soldAt: string | null;
  removedAt: string | null;
}
