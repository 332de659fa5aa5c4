import type { NextFunction, Request, Response } from 'express';
import { ValidationError } from '../errors/domain-error';

const ACCEPTED = ['application/json', 'multipart/form-data'];

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A body the service cannot read is refused outright, instead of being silently ignored. */
export function contentTypeMiddleware(req: Request, _res: Response, next: NextFunction): void {
  if (!hasBody(req)) return next();
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (ACCEPTED.includes(type)) return next();
  next(
    ValidationError.field(
      'Content-Type',
      'Send the body as application/json (or multipart/form-data for image uploads).',
    ),
  );
}
