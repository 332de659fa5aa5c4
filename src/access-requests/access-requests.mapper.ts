import type { AccessRequest } from './access-request';

/** The admin API's view of a request: every field, dates as ISO 8601. */
export function toAccessRequestResponse(r: AccessRequest) {
  return {
    id: r.id,
    accountId: r.accountId,
    status: r.status,
    legalName: r.legalName,
    organisationNumber: r.organisationNumber,
    website: r.website,
    integrationDescription: r.integrationDescription,
    expectedListings: r.expectedListings,
    termsAccepted: r.termsAccepted,
    decidedAt: r.decidedAt?.toISOString() ?? null,
    decidedBy: r.decidedBy,
    rejectionReason: r.rejectionReason,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}
