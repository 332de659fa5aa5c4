/** What an access request asks for and how it was decided; the store's rows map to this. */
export const ACCESS_REQUEST_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type AccessRequestStatus = (typeof ACCESS_REQUEST_STATUSES)[number];

/** The expected number of listings, as ranges (the form's choices). */
export const EXPECTED_LISTINGS = [
  '1-100',
  '101-1000',
  '1001-10000',
  '10001-100000',
  '100001+',
] as const;
export type ExpectedListings = (typeof EXPECTED_LISTINGS)[number];

export interface AccessRequest {
  id: string;
  accountId: string;
  status: AccessRequestStatus;
  legalName: string;
  /** 10 digits, Luhn-checked */
  organisationNumber: string;
  website: string;
  integrationDescription: string;
  expectedListings: ExpectedListings;
  termsAccepted: boolean;
  decidedAt: Date | null;
  /** `admin`, `cli` or `user:<id>` */
  decidedBy: string | null;
  rejectionReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The request's fields as the owner sends them (validated by SubmitAccessRequestDto). */
export interface AccessRequestInput {
  legalName: string;
  organisationNumber: string;
  website: string;
  integrationDescription: string;
  expectedListings: ExpectedListings;
  termsAccepted: boolean;
}
