import { IsOptional, Max, Min } from 'class-validator';
import { PAGE_SIZE_MAX } from '../api-limits';
import { IsIntegerQuery } from '../http/integer-query.decorator';

/* The type check sits nearest the property: class-validator runs it first (see CreateListingDto). */
export class LimitQueryDto {
  /** page size, 1–100 */
  @Max(PAGE_SIZE_MAX)
  @Min(1)
  @IsIntegerQuery()
  @IsOptional()
  limit: number = 20;
}

export class PageQueryDto extends LimitQueryDto {
  /** page number, from 1 */
  @Max(1_000_000)
  @Min(1)
  @IsIntegerQuery()
  @IsOptional()
  page: number = 1;
}
