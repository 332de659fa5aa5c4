import { IsOptional, IsString, Length } from 'class-validator';
import { IsPlainText } from '../../common/http/plain-text.validator';

/** A buyer's message about a listing, as its message.received event carries it. */
export class MessageReceivedDto {
  /** generated (a UUID) when absent */
  @IsOptional()
  @IsString()
  @IsPlainText()
  @Length(1, 100)
  messageId?: string;

  @IsOptional()
  @IsString()
  @IsPlainText()
  @Length(1, 500)
  preview?: string;
}

/** Who saved a listing, if anyone is named, as its listing.favorited event carries it. */
export class FavoritedDto {
  @IsOptional()
  @IsString()
  @IsPlainText()
  @Length(1, 200)
  userRef?: string;
}
