import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min, ValidateIf } from 'class-validator';

export class RotateSecretDto {
  /** hours the current secret keeps signing beside the new one, 0–72 (default 24; 0 = it and every earlier one stop now) */
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 72, default: 24 })
  @Max(72)
  @Min(0)
  @IsInt()
  // Absent takes the default; null is refused (IsOptional would let it through and end the grace).
  @ValidateIf((_: object, value: unknown) => value !== undefined)
  expireCurrentAfterHours: number = 24;
}
