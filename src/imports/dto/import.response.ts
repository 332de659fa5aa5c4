import { ApiProperty } from '@nestjs/swagger';
import { ImportCountsData } from '../../events/dto/event-payloads.response';

export class ImportErrorResponse {
  @ApiProperty({ type: String })
  code: string;
  @ApiProperty({ type: String })
  message: string;
}

export class ImportResponse {
  id: string;
  /** queued, running, held, succeeded, succeeded_with_errors, failed or cancelled */
  status: string;
  /** upsert or mirror */
  mode: string;
  dryRun: boolean;
  /** ndjson or csv */
  format: string;
  /** upload or url */
  source: string;
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

export class ImportResultResponse {
  /** the line of the file; null for a removal */
  @ApiProperty({ type: Number, nullable: true })
  line: number | null;
  @ApiProperty({ type: String, nullable: true })
  externalId: string | null;
  /** created, updated, unchanged, failed or removed */
  outcome: string;
  @ApiProperty({ type: String, nullable: true })
  listingId: string | null;
  /** what PUT /listings/by-external-id would have answered, for a failed line */
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true })
  error: Record<string, unknown> | null;
}
