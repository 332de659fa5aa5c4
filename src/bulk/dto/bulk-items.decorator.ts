import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, ArrayMinSize, IsArray } from 'class-validator';
import { BULK_MAX_ITEMS } from '../../common/api-limits';

const message = `$property must be an array of 1–${BULK_MAX_ITEMS} items`;

/** 1–50 items, else the request is refused; each item is validated as it runs, and fails alone. */
export const BulkItems = () =>
  applyDecorators(
    IsArray({ message }),
    ArrayMinSize(1, { message }),
    ArrayMaxSize(BULK_MAX_ITEMS, { message }),
  );
