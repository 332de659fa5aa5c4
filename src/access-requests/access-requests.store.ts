import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type {
  AccessRequest,
  AccessRequestInput,
  AccessRequestStatus,
  ExpectedListings,
} from './access-request';

/** The partial unique index that keeps one open (pending) request per account. */
export const ONE_OPEN_REQUEST = 'access_requests_one_open_uq';

interface AccessRequestRow {
  id: string;
  account_id: string;
  status: AccessRequestStatus;
  legal_name: string;
  organisation_number: string;
  website: string;
  integration_description: string;
  expected_listings: ExpectedListings;
  terms_accepted: boolean;
  decided_at: Date | null;
  decided_by: string | null;
  rejection_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The owner of `access_requests`. */
@Injectable()
export class AccessRequestsStore {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Fails with a unique violation of ONE_OPEN_REQUEST when the account has an open one. */
  async insert(
    em: EntityManager,
    accountId: string,
    input: AccessRequestInput,
  ): Promise<AccessRequest> {
    const [row]: AccessRequestRow[] = await em.query(
      `INSERT INTO access_requests (account_id, legal_name, organisation_number, website,
         integration_description, expected_listings, terms_accepted)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [
        accountId,
        input.legalName,
        input.organisationNumber,
        input.website,
        input.integrationDescription,
        input.expectedListings,
        input.termsAccepted,
      ],
    );
    return toAccessRequest(row);
  }

  /** Replaces the fields of the account's open request; undefined when it has none. */
  async updateOpen(
    em: EntityManager,
    accountId: string,
    input: AccessRequestInput,
  ): Promise<AccessRequest | undefined> {
    const [rows]: [AccessRequestRow[], number] = await em.query(
      `UPDATE access_requests SET legal_name = $2, organisation_number = $3, website = $4,
         integration_description = $5, expected_listings = $6, terms_accepted = $7, updated_at = now()
       WHERE account_id = $1 AND status = 'pending' RETURNING *`,
      [
        accountId,
        input.legalName,
        input.organisationNumber,
        input.website,
        input.integrationDescription,
        input.expectedListings,
        input.termsAccepted,
      ],
    );
    return rows[0] && toAccessRequest(rows[0]);
  }

  /** The account's latest request, whatever its status. */
  async latest(accountId: string): Promise<AccessRequest | undefined> {
    const [row]: AccessRequestRow[] = await this.db.query(
      `SELECT * FROM access_requests WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
      [accountId],
    );
    return row && toAccessRequest(row);
  }

  async find(id: string, em: EntityManager = this.db.manager): Promise<AccessRequest | undefined> {
    const [row]: AccessRequestRow[] = await em.query(
      `SELECT * FROM access_requests WHERE id = $1`,
      [id],
    );
    return row && toAccessRequest(row);
  }

  /** Oldest first (the queue staff work through); `after` is the last id of the previous page. */
  async page(
    status: AccessRequestStatus | null,
    after: string | null,
    limit: number,
  ): Promise<AccessRequest[]> {
    const rows: AccessRequestRow[] = await this.db.query(
      `SELECT r.* FROM access_requests r
        WHERE ($1::text IS NULL OR r.status = $1)
          AND ($2::uuid IS NULL OR (r.created_at, r.id) >
                 (SELECT c.created_at, c.id FROM access_requests c WHERE c.id = $2))
        ORDER BY r.created_at, r.id LIMIT $3`,
      [status, after, limit],
    );
    return rows.map(toAccessRequest);
  }

  /** Decides a pending request; undefined when it is not pending (or does not exist). */
  async decide(
    em: EntityManager,
    id: string,
    status: 'approved' | 'rejected',
    decidedBy: string,
    rejectionReason: string | null,
  ): Promise<AccessRequest | undefined> {
    const [rows]: [AccessRequestRow[], number] = await em.query(
      `UPDATE access_requests SET status = $2, decided_at = now(), decided_by = $3,
         rejection_reason = $4, updated_at = now()
       WHERE id = $1 AND status = 'pending' RETURNING *`,
      [id, status, decidedBy, rejectionReason],
    );
    return rows[0] && toAccessRequest(rows[0]);
  }

  /** Approves the account's open request, if it has one (the account was approved directly). */
  async approveOpen(
    em: EntityManager,
    accountId: string,
    decidedBy: string,
  ): Promise<AccessRequest | undefined> {
    const [rows]: [AccessRequestRow[], number] = await em.query(
      `UPDATE access_requests SET status = 'approved', decided_at = now(), decided_by = $2, updated_at = now()
       WHERE account_id = $1 AND status = 'pending' RETURNING *`,
      [accountId, decidedBy],
    );
    return rows[0] && toAccessRequest(rows[0]);
  }
}

function toAccessRequest(row: AccessRequestRow): AccessRequest {
  return {
    id: row.id,
    accountId: row.account_id,
    status: row.status,
    legalName: row.legal_name,
    organisationNumber: row.organisation_number,
    website: row.website,
    integrationDescription: row.integration_description,
    expectedListings: row.expected_listings,
    termsAccepted: row.terms_accepted,
    decidedAt: row.decided_at,
    decidedBy: row.decided_by,
    rejectionReason: row.rejection_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
