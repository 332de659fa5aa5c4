import { Param, ParseUUIDPipe } from '@nestjs/common';
import { NotFoundError } from '../errors/domain-error';

/** An id that is not a UUID cannot name anything: 404, never 400 or 500. */
export const uuidOrNotFound = (what = 'Resource') =>
  new ParseUUIDPipe({ exceptionFactory: () => new NotFoundError(what) });

export const UuidParam = (name: string, what = 'Resource') => Param(name, uuidOrNotFound(what));
