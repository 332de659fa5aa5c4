import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/* The type check sits nearest the property: class-validator runs it first (see CreateListingDto). */
export class PageQueryDto {
  /** page number, from 1 */
  @Max(1_000_000)
  @Min(1)
  @IsInt()
  @Type(() => Number)
  @IsOptional()
  page: number = 1;

  /** page size, 1–100 */
  @Max(100)
  @Min(1)
  @IsInt()
  @Type(() => Number)
  @IsOptional()
  limit: number = 20;
}
