import { Transform } from 'class-transformer';
import {
  Equals,
  IsBoolean,
  IsIn,
  IsString,
  IsUrl,
  Length,
  MaxLength,
  ValidateBy,
} from 'class-validator';
import { HasNoUserInfo, IsRequestableUrl } from '../../common/http/http-url.validator';
import { IsPlainText, trimText } from '../../common/http/plain-text.validator';
import {
  EXPECTED_LISTINGS,
  type AccessRequestInput,
  type ExpectedListings,
} from '../access-request';
import { luhnValid, normaliseOrganisationNumber } from '../organisation-number';

/* The type check sits nearest the property: class-validator runs it first (see CreateListingDto). */

/**
 * The access request form (the dashboard's, later): what a PENDING account's owner sends to ask
 * for API access. Each rule names its field in its message.
 */
export class SubmitAccessRequestDto implements AccessRequestInput {
  /** the company's registered name */
  @Length(1, 200, { message: 'legalName must be 1–200 characters' })
  @IsPlainText()
  @IsString({ message: 'legalName must be a string' })
  @Transform(trimText)
  legalName: string;

  /** Swedish organisationsnummer, `NNNNNN-NNNN` or 10 digits; kept as 10 digits */
  @ValidateBy({
    name: 'isOrganisationNumber',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' && /^\d{10}$/.test(value) && luhnValid(value),
      defaultMessage: () =>
        'organisationNumber must be a Swedish organisationsnummer: 10 digits (NNNNNN-NNNN) with a valid check digit',
    },
  })
  @IsString({ message: 'organisationNumber must be a string' })
  @Transform(({ value }: { value: unknown }) => normaliseOrganisationNumber(value) ?? value)
  organisationNumber: string;

  /** the company's website, http or https */
  @HasNoUserInfo('website must not contain a user name or password')
  @IsRequestableUrl('website must be an http or https URL')
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    { message: 'website must be an http or https URL' },
  )
  @MaxLength(2048, { message: 'website must be at most 2048 characters' })
  @IsPlainText()
  @IsString({ message: 'website must be a string' })
  @Transform(trimText)
  website: string;

  /** what they will integrate: their system, the listings they will publish */
  @Length(10, 2000, { message: 'integrationDescription must be 10–2000 characters' })
  @IsPlainText()
  @IsString({ message: 'integrationDescription must be a string' })
  @Transform(trimText)
  integrationDescription: string;

  /** the expected number of listings, as a range */
  @IsIn(EXPECTED_LISTINGS, {
    message: `expectedListings must be one of ${EXPECTED_LISTINGS.join(', ')}`,
  })
  expectedListings: ExpectedListings;

  /** the API terms must be accepted */
  @Equals(true, { message: 'termsAccepted must be true: the terms must be accepted' })
  @IsBoolean({ message: 'termsAccepted must be a boolean' })
  termsAccepted: boolean;
}
