import { ApiProperty } from '@nestjs/swagger';
import { CreateListingDto } from '../../listings/dto/create-listing.dto';
import { BULK_MAX_ITEMS } from '../../common/api-limits';
import { BulkItems } from './bulk-items.decorator';

export class BulkCreateDto {
  /** 1–50 listings, each validated as the body of POST /listings */
  @ApiProperty({ type: () => [CreateListingDto], minItems: 1, maxItems: BULK_MAX_ITEMS })
  @BulkItems()
  items: unknown[];
}
