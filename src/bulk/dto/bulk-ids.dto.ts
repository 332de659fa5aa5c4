import { ApiProperty } from '@nestjs/swagger';
import { BULK_MAX_ITEMS } from '../../common/api-limits';
import { BulkItems } from './bulk-items.decorator';

export class BulkIdsDto {
  /** 1–50 listing ids; an id that names none of your listings fails alone with NOT_FOUND */
  @ApiProperty({ type: [String], format: 'uuid', minItems: 1, maxItems: BULK_MAX_ITEMS })
  @BulkItems()
  ids: unknown[];
}
