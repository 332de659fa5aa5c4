import { DomainError } from '../common/errors/domain-error';
import { ExternalIdTakenError } from './listings.errors';

/** A batch item that passed its checks, with its position in the input. */
export interface AdmittedItem<T> {
  index: number;
  listing: T;
}

/**
 * Sorts a bulk create's items into those to insert and those refused, before anything is
 * written. `prepare` validates one item (throwing a DomainError to refuse it). Within the batch
 * the first valid use of an externalId wins; a later one is refused as taken. `outcomes` holds
 * each refusal at its item's index; any error that is not a DomainError is thrown.
 */
export function admitBatch<D, T extends { externalId: string | null }>(
  dtos: D[],
  prepare: (dto: D) => T,
): { outcomes: DomainError[]; pending: AdmittedItem<T>[] } {
  // Sparse: an admitted item's place is filled by the caller once it is inserted.
  const outcomes: DomainError[] = new Array(dtos.length);
  const pending: AdmittedItem<T>[] = [];
  const externalIds = new Set<string>();
  dtos.forEach((dto, index) => {
    try {
      const listing = prepare(dto);
      if (listing.externalId !== null) {
        if (externalIds.has(listing.externalId)) throw new ExternalIdTakenError(listing.externalId);
        externalIds.add(listing.externalId);
      }
      pending.push({ index, listing });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      outcomes[index] = error;
    }
  });
  return { outcomes, pending };
}
