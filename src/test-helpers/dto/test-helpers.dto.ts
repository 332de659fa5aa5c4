import { IsOptional, IsString, Length } from 'class-validator';
import { IsPlainText } from '../../common/http/plain-text.validator';

/** POST /v1/test-helpers/listings/:id/messages: a buyer's message, as the event will carry it. */
export class SimulateMessageDto {
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

/** POST /v1/test-helpers/listings/:id/favorites: who saved the listing, if anyone is named. */
export class SimulateFavoriteDto {
  @IsOptional()
  @IsString()
  @IsPlainText()
  @Length(1, 200)
  userRef?: string;
}
