import { IsEmail, IsNumberString, IsOptional, IsString, MaxLength } from 'class-validator';
import { LimitQueryDto } from '../../common/pagination/page-query.dto';

/* The type check sits nearest the property: class-validator runs it first (see CreateListingDto). */
export class AdminEmailsQueryDto extends LimitQueryDto {
  /** only the mail to this address (case-insensitive) */
  @IsEmail()
  @MaxLength(254)
  @IsString()
  @IsOptional()
  to?: string;

  /** continue after this mail id (the last one of the previous page) */
  @IsNumberString({ no_symbols: true })
  @MaxLength(19)
  @IsOptional()
  before?: string;
}
