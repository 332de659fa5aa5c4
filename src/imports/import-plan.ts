import { DomainError } from '../common/errors/domain-error';
import type { ImportResultRow, ImportStatus, OutcomeTally } from './imports.store';

/** The removal limit of a mirror import: as asked, else 10% of what it could remove, at least 10. */
export function removalLimit(maxRemovals: number | null, removable: number): number {
  return maxRemovals ?? Math.max(10, Math.ceil(removable * 0.1));
}

/** How an import that ran to its end finished. */
export function finalStatus(tally: { failed: number }): ImportStatus {
  return tally.failed > 0 ? 'succeeded_with_errors' : 'succeeded';
}

export function emptyTally(): OutcomeTally {
  return {
    created: 0,
    updated: 0,
    unchanged: 0,
    renewed: 0,
    restored: 0,
    skipped: 0,
    failed: 0,
    removed: 0,
  };
}

/** The error a failed line carries: what the PUT would have answered. */
export function lineError(error: DomainError): NonNullable<ImportResultRow['error']> {
  return error.details?.length
    ? { code: error.code, message: error.message, details: error.details }
    : { code: error.code, message: error.message };
}

/** Each line's first occurrence by externalId, to fail the later ones ("duplicate of line N"). */
export class FirstLines {
  private readonly first = new Map<string, number>();

  /** An externalId with U+0000 names no listing (none can hold one, nor can PostgreSQL's text). */
  note(externalId: unknown, line: number): void {
    if (typeof externalId === 'string' && !externalId.includes('\0') && !this.first.has(externalId))
      this.first.set(externalId, line);
  }

  /** The earlier line holding this externalId, when `line` is not its first. */
  duplicateOf(externalId: string, line: number): number | undefined {
    const first = this.first.get(externalId);
    return first !== undefined && first !== line ? first : undefined;
  }

  externalIds(): string[] {
    return [...this.first.keys()];
  }
}
