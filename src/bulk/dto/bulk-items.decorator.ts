import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray } from 'class-validator';
import { BULK_MAX_ITEMS } from '../../common/api-limits';
import { markValidatedLater } from '../../common/http/prototype-keys';

const message = `$property must be an array of 1–${BULK_MAX_ITEMS} items`;

/**
 * 1–50 items, else the request is refused; each item is validated as it runs, and fails alone.
 * The items stay as sent (not rebuilt by class-transformer, which drops some keys), so that
 * each item's own validation sees every key it has.
 */
export const BulkItems = () =>
  applyDecorators(
    IsArray({ message }),
    ArrayMinSize(1, { message }),
    ArrayMaxSize(BULK_MAX_ITEMS, { message }),
    Transform(({ obj, key }) => (obj as Record<string, unknown>)[key]),
    (target: object, property: string | symbol) => markValidatedLater(target, String(property)),
  );
