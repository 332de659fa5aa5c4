import { PartialType } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import { CreateWebhookDto } from './create-webhook.dto';

/** Only the fields to change, each validated as on create; `events` replaces the list. */
export class UpdateWebhookDto extends PartialType(CreateWebhookDto) {
  /** true re-enables the endpoint and resets its failure count; false pauses it */
  @IsOptional()
  @IsBoolean()
  isActive?: boolean;
}
