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
} from 'class-validator';
import { EVENT_NAMES, EventName } from '../../events/event-types';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** Scheme and target rules depend on configuration; the service checks those. */
const URL_SYNTAX = {
  require_tld: false,
  require_protocol: true,
  protocols: ['http', 'https'],
  allow_underscores: true,
};

export class CreateWebhookDto {
  @Transform(trim)
  @IsString()
  @MaxLength(2048)
  @IsUrl(URL_SYNTAX, { message: 'url must be an absolute http(s) URL' })
  url: string;

  /** the events to receive; empty or omitted means every event */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(EVENT_NAMES.length)
  @ArrayUnique()
  @IsIn(EVENT_NAMES, { each: true, message: `events must contain only: ${EVENT_NAMES.join(', ')}` })
  events?: EventName[];

  @IsOptional()
  @Transform(trim)
  @IsString()
  @Length(0, 500)
  description?: string;
}
