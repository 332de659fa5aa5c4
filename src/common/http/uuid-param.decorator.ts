import { Param, ParseUUIDPipe } from '@nestjs/common';
import { NotFoundError } from '../errors/domain-error';

/** A path id that is not a UUID cannot name anything: 404, never 400 or 500. */
export const UuidParam = (name: string, what = 'Resource') =>
  Param(name, new ParseUUIDPipe({ exceptionFactory: () => new NotFoundError(what) }));
