import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
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
  type ValidationArguments,
} from 'class-validator';
import { CONDITIONS, Condition } from '../listing.constants';
import { ImageRefDto } from './image-ref.dto';
import { IsPlainText, trimText } from '../../common/http/plain-text.validator';

/**
 * Spaces and dashes are how people write numbers; E.164 is how they are stored. Only space
 * separators and tabs are dropped: a control character is refused, not silently removed.
 */
const compactPhone = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? value.replace(/[\p{Zs}\t-]/gu, '') : value;
const required = () => IsDefined({ message: '$property is required' });

/** Names the first item of `images` that is not an object. */
function firstNonObject({ value }: ValidationArguments): string {
  const at = (value as unknown[]).findIndex(
    (item) => item === null || typeof item !== 'object' || Array.isArray(item),
  );
  return `images[${at}] must be an object: {"url": "https://…"}`;
}

/** Not `.` or `..`: URL parsers (fetch, browsers) drop such a path segment, so PUT could not reach it. */
export const EXTERNAL_ID_PATTERN = /^(?!\.\.?$)[^\s/\p{C}]{1,128}$/u;
export const EXTERNAL_ID_RULE =
  '1–128 printable characters without whitespace or /, and not . or ..';

/*
 * The global pipe reports the first failing rule per field, and class-validator runs the
 * decorator nearest the property first: so the type check sits at the bottom, the ranges above it.
 */
export class CreateListingDto {
  /** 5–120 characters after trimming */
  @Length(5, 120)
  @IsPlainText()
  @IsString()
  @Transform(trimText)
  @required()
  title: string;

  /** 1–10,000 characters */
  @Length(1, 10_000)
  @IsPlainText()
  @IsString()
  @required()
  description: string;

  /** whole SEK, 0–1,000,000,000 */
  @Max(1_000_000_000)
  @Min(0)
  @IsInt()
  @required()
  price: number;

  @IsIn(CONDITIONS)
  @required()
  condition: Condition;

  /** a leaf category slug from GET /v1/categories */
  @Length(1, 100)
  @IsPlainText()
  @IsString()
  @required()
  categorySlug: string;

  /** a län slug from GET /v1/locations */
  @Length(1, 100)
  @IsPlainText()
  @IsString()
  @required()
  locationLan: string;

  /** a kommun slug belonging to locationLan */
  @Length(1, 100)
  @IsPlainText()
  @IsString()
  @required()
  locationKommun: string;

  /** your own id: 1–128 printable characters, no whitespace or `/`, not `.` or `..`; unique per account and mode */
  @Matches(EXTERNAL_ID_PATTERN, {
    message: `externalId must be ${EXTERNAL_ID_RULE}`,
  })
  @IsPlainText()
  @IsString()
  @IsOptional()
  externalId?: string | null;

  /** E.164, e.g. +46701234567 (spaces and dashes are removed first) */
  @Matches(/^\+\d{7,15}$/, { message: 'phone must be in international format: + and 7–15 digits' })
  @IsPlainText()
  @IsString()
  @Transform(compactPhone)
  @IsOptional()
  phone?: string | null;

  /** values for the category's attributes (see GET /v1/categories) */
  // Text rules are the category check's (validateAttributes), each named `attributes.<key>`.
  @IsObject()
  @IsOptional()
  attributes?: Record<string, unknown> | null;

  /** up to 30 images by URL */
  @Type(() => ImageRefDto)
  @ValidateNested({ each: true })
  @ArrayMaxSize(30, { message: 'images must contain at most 30 images' })
  // ValidateNested finds nothing to check in an item that is an array: it would reach the insert.
  @IsObject({ each: true, message: firstNonObject })
  @IsArray()
  @IsOptional()
  images?: ImageRefDto[] | null;
}
