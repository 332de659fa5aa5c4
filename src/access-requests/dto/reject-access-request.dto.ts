import { IsString, Length } from 'class-validator';
import { IsPlainText, trimText } from '../../common/http/plain-text.validator';
import { Transform } from 'class-transformer';

/* The type check sits nearest the property: class-validator runs it first (see CreateListingDto). */

export class RejectAccessRequestDto {
  /** why the request was rejected; shown to the account's owner */
  @Length(1, 500)
  @IsPlainText()
  @IsString()
  @Transform(trimText)
  reason: string;
}
