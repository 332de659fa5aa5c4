import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import { BULK_MAX_ITEMS } from '../../common/api-limits';
import { BulkItems } from './bulk-items.decorator';

/**
 * Unlike the other bulk id lists, a string that is not a UUID refuses the whole request (400 on
 * `ids`): a renewal feed sends ids it read from us, so a malformed one is a bug to surface.
 */
export class BulkRenewDto {
  /** 1–50 listing ids; one that names none of your listings fails alone with NOT_FOUND */
  @ApiProperty({ type: [String], format: 'uuid', minItems: 1, maxItems: BULK_MAX_ITEMS })
  @BulkItems()
  @IsUUID('all', { each: true, message: 'each value in ids must be a UUID' })
  ids: string[];
}
