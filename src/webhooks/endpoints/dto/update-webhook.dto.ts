import { IsBoolean, IsOptional } from 'class-validator';
import type { EventName } from '../../../events/event-types';
import { UnlessAbsent, WebhookDescription, WebhookEvents, WebhookUrl } from './create-webhook.dto';

/** Only the fields to change. `events` replaces the list; `description: null` clears it. */
export class UpdateWebhookDto {
  @UnlessAbsent()
  @WebhookUrl()
  url?: string;

  /** empty means every event */
  @UnlessAbsent()
  @WebhookEvents()
  events?: EventName[];

  @IsOptional()
  @WebhookDescription()
  description?: string | null;

  /** true re-enables the endpoint and resets its failure count; false pauses it */
  @UnlessAbsent()
  @IsBoolean()
  isActive?: boolean;
}
