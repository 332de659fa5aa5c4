import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { CONDITIONS, Condition } from '../listing.constants';
import { ImageRefDto } from './image-ref.dto';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
/** Spaces and dashes are how people write numbers; E.164 is how they are stored. */
const compactPhone = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? value.replace(/[\s-]/g, '') : value;

export const EXTERNAL_ID_PATTERN = /^[^\s/\p{C}]{1,128}$/u;

export class CreateListingDto {
  /** 5–120 characters after trimming */
  @Transform(trim)
  @IsString()
  @Length(5, 120)
  title: string;

  /** 1–10,000 characters */
  @IsString()
  @Length(1, 10_000)
  description: string;

  /** whole SEK, 0–1,000,000,000 */
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  price: number;

  @IsIn(CONDITIONS)
  condition: Condition;

  /** a leaf category slug from GET /categories */
  @IsString()
  @Length(1, 100)
  categorySlug: string;

  /** a län slug from GET /locations */
  @IsString()
  @Length(1, 100)
  locationLan: string;

  /** a kommun slug belonging to locationLan */
  @IsString()
  @Length(1, 100)
  locationKommun: string;

  /** your own id: 1–128 printable characters, no whitespace or `/`; unique per account and mode */
  @IsOptional()
  @IsString()
  @Matches(EXTERNAL_ID_PATTERN, {
    message: 'externalId must be 1–128 printable characters without whitespace or /',
  })
  externalId?: string | null;

  /** E.164, e.g. +46701234567 (spaces and dashes are removed first) */
  @IsOptional()
  @Transform(compactPhone)
  @IsString()
  @Matches(/^\+\d{7,15}$/, { message: 'phone must be in international format: + and 7–15 digits' })
  phone?: string | null;

  /** values for the category's attributes (see GET /categories) */
  @IsOptional()
  @IsObject()
  attributes?: Record<string, unknown> | null;

  /** up to 30 images by URL */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(30, { message: 'images must contain at most 30 images' })
  @ValidateNested({ each: true })
  @Type(() => ImageRefDto)
  images?: ImageRefDto[];
}

/** Same rules as a create; the shared type of what a listing write carries. */
export type ListingInput = CreateListingDto;
