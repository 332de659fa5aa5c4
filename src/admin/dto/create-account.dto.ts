import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, Length } from 'class-validator';
import { IsPlainText } from '../../common/http/plain-text.validator';

export class CreateAccountDto {
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @IsPlainText()
  @Length(1, 200)
  name: string;

  @IsOptional() @IsBoolean() approve?: boolean;
}
