import { IsOptional, IsString, Length } from 'class-validator';
import { IsPlainText } from '../../common/http/plain-text.validator';

/* The type check sits nearest the property: class-validator runs it first (see CreateListingDto). */

/** A buyer's message about a listing, as its message.received event carries it. */
export class MessageReceivedDto {
  /** generated (a UUID) when absent */
  @Length(1, 100)
  @IsPlainText()
  @IsString()
  @IsOptional()
  messageId?: string;

  @Length(1, 500)
  @IsPlainText()
  @IsString()
  @IsOptional()
  preview?: string;
}

/** Who saved a listing, if anyone is named, as its listing.favorited event carries it. */
export class FavoritedDto {
  @Length(1, 200)
  @IsPlainText()
  @IsString()
  @IsOptional()
  userRef?: string;
}
