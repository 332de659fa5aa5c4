import { IsOptional, Max, Min } from 'class-validator';
import { PAGE_SIZE_MAX } from '../api-limits';
import { IsIntegerQuery } from '../http/integer-query.decorator';

/** A page when the request names no size. */
const PAGE_SIZE_DEFAULT = 20;
/** A page number past any list this API holds: larger ones are refused, not read as offsets. */
const PAGE_MAX = 1_000_000;

/* The type check sits nearest the property: class-validator runs it first (see CreateListingDto). */
export class LimitQueryDto {
  /** page size, 1–100 */
  @Max(PAGE_SIZE_MAX)
  @Min(1)
  @IsIntegerQuery()
  @IsOptional()
  limit: number = PAGE_SIZE_DEFAULT;
}

export class PageQueryDto extends LimitQueryDto {
  /** page number, from 1 */
  @Max(PAGE_MAX)
  @Min(1)
  @IsIntegerQuery()
  @IsOptional()
  page: number = 1;
}
