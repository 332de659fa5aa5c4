import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export class RotateSecretDto {
  /** hours the current secret keeps signing beside the new one, 0–72 (default 24; 0 = it stops now) */
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 72, default: 24 })
  @Max(72)
  @Min(0)
  @IsInt()
  @IsOptional()
  expireCurrentAfterHours: number = 24;
}
