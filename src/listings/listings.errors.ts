import { ValidationError } from '../common/errors/domain-error';

/** The externalId names another listing of this account and mode that is not REMOVED. */
export class ExternalIdTakenError extends ValidationError {
  constructor(externalId: string) {
    super(
      [
        {
          field: 'externalId',
          message: `externalId '${externalId}' is already used by another listing`,
        },
      ],
      `externalId '${externalId}' is already used by another listing`,
    );
  }
}

/**
 * An action the listing's state does not allow: the spec has no code of its own for it, so it is
 * a validation error on `status`.
 */
export class WrongStateError extends ValidationError {
  constructor(currentStatus: string, action: string) {
    super(
      [{ field: 'status', message: `Cannot ${action} a listing in state ${currentStatus}.` }],
      `Cannot ${action} a listing in state ${currentStatus}.`,
    );
  }
}
