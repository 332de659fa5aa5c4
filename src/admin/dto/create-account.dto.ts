import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, Length } from 'class-validator';
import { IsPlainText, trimText } from '../../common/http/plain-text.validator';

export class CreateAccountDto {
  @Transform(trimText)
  @IsString()
  @IsPlainText()
  @Length(1, 200)
  name: string;

  @IsOptional() @IsBoolean() approve?: boolean;
}
