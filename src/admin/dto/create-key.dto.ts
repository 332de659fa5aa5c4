import { ArrayMinSize, IsArray, IsIn, IsOptional, IsString, Length } from 'class-validator';
import { API_KEY_KINDS, ApiKeyKind, Scope, SCOPES } from '../../auth/principal';
import { IsPlainText } from '../../common/http/plain-text.validator';

export class CreateKeyDto {
  @IsIn(API_KEY_KINDS) kind: ApiKeyKind;
  @IsOptional() @IsString() @IsPlainText() @Length(1, 100) name?: string;
  @IsOptional() @IsArray() @ArrayMinSize(1) @IsIn(SCOPES, { each: true }) scopes?: Scope[];
}
