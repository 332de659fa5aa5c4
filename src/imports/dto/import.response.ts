import { ApiProperty } from '@nestjs/swagger';
import { ErrorCode } from '../../common/errors/error-code';
import { ImportCountsData } from '../../events/dto/event-payloads.response';
import { FETCH_FAILURES, type FetchFailure } from '../../platform/outbound/guarded-fetch';
import {
  IMPORT_OUTCOMES,
  IMPORT_STATUSES,
  type ImportFormat,
  type ImportMode,
  type ImportOutcome,
  type ImportStatus,
} from '../imports.store';

export class ImportErrorResponse {
  @ApiProperty({ type: String })
  code: string;
  @ApiProperty({ type: String })
  message: string;
  /** why the feed at `sourceUrl` could not be fetched (as an image's `error.reason`); else null */
  @ApiProperty({ enum: FETCH_FAILURES, nullable: true })
  reason: FetchFailure | null;
}

export class ImportResponse {
  id: string;
  @ApiProperty({ enum: IMPORT_STATUSES })
  status: ImportStatus;
  @ApiProperty({ enum: ['upsert', 'mirror'] satisfies ImportMode[] })
  mode: ImportMode;
  dryRun: boolean;
  /** the lines renew their listing when it is ACTIVE with 7 days or less left, or EXPIRED */
  renew: boolean;
  @ApiProperty({ enum: ['ndjson', 'csv'] satisfies ImportFormat[] })
  format: ImportFormat;
  /** the feed was uploaded, or fetched from `sourceUrl` */
  @ApiProperty({ enum: ['upload', 'url'] })
  source: 'upload' | 'url';
  @ApiProperty({ type: String, nullable: true })
  sourceUrl: string | null;
  livemode: boolean;
  @ApiProperty({ type: Number, nullable: true })
  maxRemovals: number | null;
  /** a mirror import that would remove more than its limit (held, or a dry run reporting it) */
  removalLimitExceeded: boolean;
  @ApiProperty({ type: () => ImportCountsData })
  counts: ImportCountsData;
  /** why the import as a whole failed */
  @ApiProperty({ type: () => ImportErrorResponse, nullable: true })
  error: ImportErrorResponse | null;
  createdAt: string;
  @ApiProperty({ type: String, nullable: true })
  startedAt: string | null;
  @ApiProperty({ type: String, nullable: true })
  finishedAt: string | null;
}

class ImportFieldError {
  field: string;
  message: string;
}

/** What PUT /listings/by-external-id would have answered for the line. */
export class ImportLineErrorResponse {
  code: ErrorCode;
  message: string;
  /** for VALIDATION_ERROR: each field at fault */
  details?: ImportFieldError[];
}

export class ImportResultResponse {
  /** the line of the file; null for a removal */
  @ApiProperty({ type: Number, nullable: true })
  line: number | null;
  @ApiProperty({ type: String, nullable: true })
  externalId: string | null;
  @ApiProperty({ enum: IMPORT_OUTCOMES })
  outcome: ImportOutcome;
  /** the listing the line wrote, matched or removed; null when it failed, or was created by a dry run */
  @ApiProperty({ type: String, nullable: true })
  listingId: string | null;
  /** for a failed line: what PUT /listings/by-external-id would have answered */
  @ApiProperty({ type: () => ImportLineErrorResponse, nullable: true })
  error: ImportLineErrorResponse | null;
  /** for a skipped line: why it was left alone (`SOLD`: its listing is sold) */
  @ApiProperty({ type: String, enum: ['SOLD', null], nullable: true })
  reason: 'SOLD' | null;
}
