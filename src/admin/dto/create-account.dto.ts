import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, Length } from 'class-validator';
import { IsPlainText, trimText } from '../../common/http/plain-text.validator';

export class CreateAccountDto {
  @Length(1, 200)
  @IsPlainText()
  @IsString()
  @Transform(trimText)
  name: string;

  @IsOptional() @IsBoolean() approve?: boolean;
}
