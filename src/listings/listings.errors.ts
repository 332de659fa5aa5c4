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
