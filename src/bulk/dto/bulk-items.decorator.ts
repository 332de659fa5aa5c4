import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, ArrayMinSize, IsArray } from 'class-validator';
import { BULK_MAX_ITEMS } from '../../common/api-limits';

const message = `$property must be an array of 1–${BULK_MAX_ITEMS} items`;

/**
 * The only rule a bulk body has as a whole: 1–50 items, else the request is refused. The items
 * themselves are validated one by one as they run, so a bad item fails alone.
 */
export const BulkItems = () =>
  applyDecorators(
    IsArray({ message }),
    ArrayMinSize(1, { message }),
    ArrayMaxSize(BULK_MAX_ITEMS, { message }),
  );
