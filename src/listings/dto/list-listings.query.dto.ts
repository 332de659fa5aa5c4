import { IsIn, IsISO8601, IsOptional, IsString, Length } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { LISTING_SORTS, LISTING_STATUSES, ListingSort, ListingStatus } from '../listing.constants';
import { IsPlainText } from '../../common/http/plain-text.validator';

export class ListListingsQueryDto extends PageQueryDto {
  /** only listings in this state; REMOVED listings are listed only when asked for */
  @IsOptional()
  @IsIn(LISTING_STATUSES)
  status?: ListingStatus;

  /** newest (default), oldest, price_asc, price_desc; ties broken by id */
  @IsOptional()
  @IsIn(LISTING_SORTS)
  sort?: ListingSort;

  /** exact match on your own id */
  @IsOptional()
  @IsPlainText()
  @IsString()
  @Length(1, 128)
  externalId?: string;

  /** incremental sync: only listings changed after this instant, oldest change first */
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true })
  updatedSince?: string;
}
