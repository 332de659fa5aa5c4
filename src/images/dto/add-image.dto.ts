import { IsInt, IsOptional, IsString, IsUrl, Length, Max, MaxLength, Min } from 'class-validator';
import { IsRequestableUrl } from '../../common/http/http-url.validator';
import { IsPlainText } from '../../common/http/plain-text.validator';

/**
 * One image by exactly one of: `url` (JSON), `base64` (JSON; raw or a data: URL), or a
 * multipart file in field `file`.
 */
export class AddImageDto {
  @IsOptional()
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: 'url must be an http(s) URL' },
  )
  @IsRequestableUrl('url must be an http(s) URL')
  @MaxLength(2048)
  @IsPlainText()
  @IsString({ message: 'url must be an http(s) URL' })
  url?: string;

  @IsOptional()
  @IsString()
  base64?: string;

  @Length(1, 255)
  @IsPlainText()
  @IsString()
  @IsOptional()
  filename?: string;

  /** requested position 0–29; the response tells the position it got */
  @Max(29)
  @Min(0)
  @IsInt()
  @IsOptional()
  order?: number | null;
}
