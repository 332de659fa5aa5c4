import { IsIn, IsOptional, Matches, Max, Min } from 'class-validator';
import { IMPORT_OUTCOMES, ImportOutcome } from '../imports.store';
import { IsIntegerQuery } from '../../common/http/integer-query.decorator';

export class ImportResultsQueryDto {
  /** `nextCursor` of the previous page */
  @Matches(/^\d{1,9}$/, { message: 'after must be a nextCursor from a previous page' })
  @IsOptional()
  after?: string;

  /** page size, 1–1000 */
  @Max(1000)
  @Min(1)
  @IsIntegerQuery()
  @IsOptional()
  limit: number = 100;

  /** only results with this outcome */
  @IsIn(IMPORT_OUTCOMES, { message: `outcome must be one of: ${IMPORT_OUTCOMES.join(', ')}` })
  @IsOptional()
  outcome?: ImportOutcome;
}
