import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, Length, Max, MaxLength, Min } from 'class-validator';
import { IsPlainText } from '../../common/http/plain-text.validator';

/** Multipart text fields arrive as strings; a whole number in one is read as that number. */
const numericString = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;

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
  @MaxLength(2048)
  @IsPlainText()
  @IsString({ message: 'url must be an http(s) URL' })
  url?: string;

  @IsOptional()
  @IsString()
  base64?: string;

  @IsOptional()
  @IsString()
  @IsPlainText()
  @Length(1, 255)
  filename?: string;

  /** requested position 0–29; the response tells the position it got */
  @Max(29)
  @Min(0)
  @IsInt()
  @Transform(numericString)
  @IsOptional()
  order?: number | null;
}
