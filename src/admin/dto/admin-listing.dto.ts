import { IsString, Length } from 'class-validator';
import { IsPlainText } from '../../common/http/plain-text.validator';

/* The type check sits nearest the property: class-validator runs it first (see CreateListingDto). */

export class RemoveListingDto {
  /** why the listing was removed; sent to the owner in listing.removed */
  @Length(1, 500)
  @IsPlainText()
  @IsString()
  reason: string;
}
