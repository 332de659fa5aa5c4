import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsInt, ValidationOptions } from 'class-validator';

/** Plain decimal digits, optionally negative: no exponent, point, sign `+`, spaces, prefix or `_`. */
const DECIMAL_INTEGER = /^-?\d+$/;

/** A query string's integer as its number; anything else stays as sent, for `IsInt` to refuse. */
export function toDecimalInteger({ value }: { value: unknown }): unknown {
  return typeof value === 'string' && DECIMAL_INTEGER.test(value) ? Number(value) : value;
}

/**
 * An integer query parameter: only plain decimal digits (`10`, `-1`) are read as a number, so
 * `1e1`, `1.0`, `+1`, ` 1`, `0x10` and `1_000` are refused with 400 naming the parameter, where
 * `@Type(() => Number)` would have read several of them as numbers. Put it where `@IsInt()`
 * would go (nearest the property but for `@IsOptional()`), ranges above it.
 */
export const IsIntegerQuery = (options?: ValidationOptions) =>
  applyDecorators(IsInt(options), Transform(toDecimalInteger));
