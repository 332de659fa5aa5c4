import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, Max, Min } from 'class-validator';
import type { ImportMode } from '../imports.store';
import { IsIntegerQuery } from '../../common/http/integer-query.decorator';

/** `true` and `false` only: a query string has no booleans, and a typo must not read as false. */
const toBoolean = ({ value }: { value: unknown }) =>
  value === 'true' ? true : value === 'false' ? false : value;

export class CreateImportQueryDto {
  /** `upsert` applies the lines; `mirror` also removes what the feed no longer lists */
  @IsIn(['upsert', 'mirror'], { message: 'mode must be upsert or mirror' })
  @IsOptional()
  mode: ImportMode = 'upsert';

  /** reads, validates and reports every outcome, and writes nothing */
  @IsBoolean({ message: 'dryRun must be true or false' })
  @Transform(toBoolean)
  @IsOptional()
  dryRun: boolean = false;

  /** renews each line's listing that is ACTIVE with 7 days or less left, or EXPIRED */
  @IsBoolean({ message: 'renew must be true or false' })
  @Transform(toBoolean)
  @IsOptional()
  renew: boolean = false;

  /** mirror only: the most listings the import may remove before it is held for confirmation */
  @Max(1_000_000)
  @Min(0)
  @IsIntegerQuery({ message: 'maxRemovals must be a whole number' })
  @IsOptional()
  maxRemovals?: number;
}
