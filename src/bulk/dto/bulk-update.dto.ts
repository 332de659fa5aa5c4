import { ApiProperty } from '@nestjs/swagger';
import { UpdateListingDto } from '../../listings/dto/update-listing.dto';
import { BULK_MAX_ITEMS } from '../../common/api-limits';
import { BulkItems } from './bulk-items.decorator';

/** The documented shape of one item; each is validated as the body of PATCH /listings/:id. */
class BulkUpdateItem extends UpdateListingDto {
  /** the listing's id; or leave it out and name the listing by `externalId` */
  id?: string;
}

export class BulkUpdateDto {
  /** 1–50 items, each naming its listing by exactly one of `id` or `externalId`, plus the fields to change */
  @ApiProperty({ type: () => [BulkUpdateItem], minItems: 1, maxItems: BULK_MAX_ITEMS })
  @BulkItems()
  items: unknown[];
}
