import { ApiProperty } from '@nestjs/swagger';
import { IsISO8601 } from 'class-validator';

export class RecoverDto {
  /** ISO 8601 timestamp within the event retention (30 days by default), not in the future */
  @ApiProperty({ type: String, format: 'date-time' })
  @IsISO8601(
    { strict: true, strictSeparator: true },
    { message: 'since must be an ISO 8601 timestamp' },
  )
  since: string;
}
