import {
  IsIn,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  ValidateBy,
  ValidationArguments,
} from 'class-validator';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { LISTING_SORTS, LISTING_STATUSES, ListingSort, ListingStatus } from '../listing.constants';
import { IsPlainText } from '../../common/http/plain-text.validator';
import type { ImageStatus } from './listing.response';

/** The image statuses worth finding: ready ones need nothing done. */
export const IMAGE_STATUS_FILTERS = ['pending', 'failed'] as const satisfies readonly ImageStatus[];

/** afterId is half of a cursor: without updatedSince it means nothing, so it is refused. */
const OnlyWithUpdatedSince = () =>
  ValidateBy({
    name: 'onlyWithUpdatedSince',
    validator: {
      validate: (_: unknown, args?: ValidationArguments) =>
        (args?.object as ListListingsQueryDto).updatedSince !== undefined,
      defaultMessage: () => 'afterId is only accepted together with updatedSince',
    },
  });

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
  @Length(1, 128)
  @IsPlainText()
  @IsString()
  @IsOptional()
  externalId?: string;

  /**
   * incremental sync: listings changed at or after this instant, ordered by (updatedAt, id);
   * re-read from the last updatedAt seen minus 60 s and deduplicate by id
   */
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true })
  updatedSince?: string;

  /** only listings with at least one image in this processing status */
  @IsOptional()
  @IsIn(IMAGE_STATUS_FILTERS)
  imageStatus?: (typeof IMAGE_STATUS_FILTERS)[number];

  /** with updatedSince: the last id seen, to continue after (updatedSince, afterId) */
  @OnlyWithUpdatedSince()
  @IsUUID('all', { message: 'afterId must be a listing id' })
  @IsOptional()
  afterId?: string;
}
