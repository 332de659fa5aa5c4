import { ErrorCode } from './error-code';

export interface FieldError {
  field: string;
  message: string;
}

/** A field the request may not send (unknown to the route's DTO, or to a route that takes none). */
export const notAllowedField = (field: string): FieldError => ({
  field,
  message: `${field} is not an allowed field`,
});

/** Services throw these; the exception filter alone turns them into HTTP answers. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldError[],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** An error lists at most this many field errors; its message counts the rest. */
export const MAX_ERROR_DETAILS = 50;

export class ValidationError extends DomainError {
  constructor(details: FieldError[], message = 'The request is invalid.') {
    const hidden = details.length - MAX_ERROR_DETAILS;
    super(
      ErrorCode.VALIDATION_ERROR,
      hidden > 0 ? `${message} … and ${hidden} more error${hidden === 1 ? '' : 's'}` : message,
      hidden > 0 ? details.slice(0, MAX_ERROR_DETAILS) : details,
    );
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }], message);
  }

  /**
   * One error for every field error of the lists, in order, the first per field kept; the
   * message is the first one's. Undefined when there are none.
   */
  static merged(...lists: FieldError[][]): ValidationError | undefined {
    const details = firstPerField(lists.flat());
    return details.length > 0 ? new ValidationError(details, details[0].message) : undefined;
  }
}

/** The first error of each field, in order: one message per field. */
export function firstPerField(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter(({ field }) => !seen.has(field) && seen.add(field));
}

export class NotFoundError extends DomainError {
  constructor(what = 'Resource') {
    super(ErrorCode.NOT_FOUND, `${what} not found.`);
  }
}

export class UnauthorizedError extends DomainError {
  constructor(message = 'A valid API key is required: Authorization: Bearer <key>.') {
    super(ErrorCode.UNAUTHORIZED, message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message: string) {
    super(ErrorCode.FORBIDDEN, message);
  }
}

export class RateLimitedError extends DomainError {
  constructor(
    readonly retryAfterSeconds: number,
    message = `Rate limit exceeded. Retry after ${retryAfterSeconds} s.`,
  ) {
    super(ErrorCode.RATE_LIMITED, message);
  }
}
