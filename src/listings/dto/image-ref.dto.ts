import {
  IsDefined,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { IsRequestableUrl } from '../../common/http/http-url.validator';
import { IsPlainText } from '../../common/http/plain-text.validator';

/** An image referenced by URL inside a listing body. */
export class ImageRefDto {
  /** http(s) URL of the image, stored as given */
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: 'url must be an http(s) URL' },
  )
  @IsRequestableUrl('url must be an http(s) URL')
  @MaxLength(2048)
  @IsPlainText()
  @IsString({ message: 'url must be an http(s) URL' })
  @IsDefined({ message: 'url is required' })
  url: string;

  /** requested position 0–29; resolved against the others, then renumbered densely */
  @Max(29)
  @Min(0)
  @IsInt()
  @IsOptional()
  order?: number;
}
