import { IsBoolean, IsOptional, ValidateIf } from 'class-validator';
import type { EventName } from '../../../events/event-types';
import { WebhookDescription, WebhookEvents, WebhookUrl } from './create-webhook.dto';

/** Absent may be left out; null is validated (and refused) like any other value. */
const UnlessAbsent = () => ValidateIf((_: object, value: unknown) => value !== undefined);

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
  @IsOptional()
  @IsBoolean()
  isActive?: boolean;
}
