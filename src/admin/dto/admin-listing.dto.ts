import { IsString, Length } from 'class-validator';
import { IsPlainText } from '../../common/http/plain-text.validator';

export class RemoveListingDto {
  /** why the listing was removed; sent to the owner in listing.removed */
  @IsString()
  @IsPlainText()
  @Length(1, 500)
  reason: string;
}
