import { ArrayMinSize, IsArray, IsIn, IsOptional, IsString, Length } from 'class-validator';
import { API_KEY_KINDS, ApiKeyKind, Scope, SCOPES } from '../../auth/principal';
import { IsPlainText } from '../../common/http/plain-text.validator';

/** A new key: its kind, a name (1–100 characters) and at least one scope (all when left out). */
export class CreateKeyDto {
  @IsIn(API_KEY_KINDS) kind: ApiKeyKind;
  @Length(1, 100) @IsPlainText() @IsString() @IsOptional() name?: string;
  @IsIn(SCOPES, { each: true }) @ArrayMinSize(1) @IsArray() @IsOptional() scopes?: Scope[];
}
