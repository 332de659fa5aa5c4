import { IsInt, IsOptional, Max, Min } from 'class-validator';

export class RotateSecretDto {
  /** hours the current secret keeps signing beside the new one, 0–72 (default 24; 0 = it stops now) */
  @Max(72)
  @Min(0)
  @IsInt()
  @IsOptional()
  expireCurrentAfterHours: number = 24;
}
