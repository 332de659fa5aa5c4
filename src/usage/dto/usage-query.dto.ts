import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Max, Min } from 'class-validator';
import { IsIntegerQuery } from '../../common/http/integer-query.decorator';

const DAYS_MESSAGE = 'days must be an integer from 1 to 90';

export class UsageQueryDto {
  /** how many UTC days to report, today included: 1–90 */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 90, default: 30 })
  @IsOptional()
  @IsIntegerQuery({ message: DAYS_MESSAGE })
  @Min(1, { message: DAYS_MESSAGE })
  @Max(90, { message: DAYS_MESSAGE })
  days: number = 30;
}
