import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { IsRequestableUrl } from '../../../common/http/http-url.validator';
import { EVENT_NAMES, EventName } from '../../../events/event-types';
import { IsPlainText, trimText } from '../../../common/http/plain-text.validator';

/** Absent may be left out; null is validated (and refused) like any other value. */
export const UnlessAbsent = () => ValidateIf((_: object, value: unknown) => value !== undefined);

/** Syntax only: the scheme and target rules depend on configuration, so the service checks them. */
export const WebhookUrl = () =>
  applyDecorators(
    Transform(trimText),
    IsString(),
    IsPlainText(),
    MaxLength(2048),
    IsUrl(
      { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
      { message: 'url must be an absolute http(s) URL' },
    ),
    IsRequestableUrl('url must be an absolute http(s) URL'),
  );

export const WebhookEvents = () =>
  applyDecorators(
    IsArray(),
    ArrayMaxSize(EVENT_NAMES.length),
    ArrayUnique(),
    IsIn(EVENT_NAMES, {
      each: true,
      message: `events must contain only: ${EVENT_NAMES.join(', ')}`,
    }),
  );

export const WebhookDescription = () =>
  applyDecorators(Transform(trimText), IsString(), IsPlainText(), Length(0, 500));

export class CreateWebhookDto {
  @WebhookUrl()
  url: string;

  /** the events to receive; empty or omitted means every event */
  @UnlessAbsent()
  @WebhookEvents()
  events?: EventName[];

  @IsOptional()
  @WebhookDescription()
  description?: string | null;
}
