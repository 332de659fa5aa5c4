import type { DomainEvent } from '../events/event-types';
import type { ImportResponse, ImportResultResponse } from './dto/import.response';
import { countsOf, ImportResultRow, ImportRow } from './imports.store';

export function toImportResponse(row: ImportRow): ImportResponse {
  return {
    id: row.id,
    status: row.status,
    mode: row.mode,
    dryRun: row.dry_run,
    renew: row.renew,
    format: row.format,
    source: row.source,
    sourceUrl: row.source_url,
    livemode: row.livemode,
    maxRemovals: row.max_removals,
    removalLimitExceeded: row.removal_limit_exceeded,
    counts: countsOf(row),
    // stored only when the feed could not be fetched; every other failure shows null
    error: row.error && { ...row.error, reason: row.error.reason ?? null },
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
  };
}

export function toImportResultResponse(row: ImportResultRow): ImportResultResponse {
  return {
    line: row.line,
    externalId: row.external_id,
    outcome: row.outcome,
    listingId: row.listing_id,
    error: row.error,
    reason: row.reason ?? null,
  };
}

/** `import.held` or `import.finished`, about the import as it now stands. */
export function importEvent(
  event: 'import.held' | 'import.finished',
  row: ImportRow,
): DomainEvent<'import.held' | 'import.finished'> {
  return {
    accountId: row.account_id,
    event,
    data: {
      id: row.id,
      livemode: row.livemode,
      status: row.status,
      mode: row.mode,
      dryRun: row.dry_run,
      counts: countsOf(row),
    },
  };
}
