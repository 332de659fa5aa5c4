import { IsOptional, IsString, Length } from 'class-validator';
import { IsPlainText } from '../../common/http/plain-text.validator';

export class RemoveListingDto {
  /** why the listing was removed; sent to the owner in listing.removed */
  @IsString()
  @IsPlainText()
  @Length(1, 500)
  reason: string;
}

export class MessageReceivedDto {
  @IsOptional()
  @IsString()
  @IsPlainText()
  @Length(1, 100)
  messageId?: string;

  @IsOptional()
  @IsString()
  @IsPlainText()
  @Length(1, 200)
  preview?: string;
}

export class FavoritedDto {
  @IsOptional()
  @IsString()
  @IsPlainText()
  @Length(1, 100)
  userRef?: string;
}
