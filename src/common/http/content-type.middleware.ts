import type { NextFunction, Request, Response } from 'express';
import { ValidationError } from '../errors/domain-error';

const ACCEPTED = ['application/json', 'multipart/form-data'];
/** An inventory import's body is the feed itself; the imports API reads it as a stream. */
const FEEDS = ['application/x-ndjson', 'text/csv'];
const IMPORT_UPLOAD = /^\/imports\/?$/i;

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A body the service cannot read is refused outright, instead of being silently ignored. */
export function contentTypeMiddleware(req: Request, _res: Response, next: NextFunction): void {
  if (!hasBody(req)) return next();
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (ACCEPTED.includes(type)) return next();
  if (FEEDS.includes(type) && req.method === 'POST' && IMPORT_UPLOAD.test(req.path)) return next();
  next(
    ValidationError.field(
      'Content-Type',
      'Send the body as application/json (multipart/form-data for image uploads, application/x-ndjson or text/csv for imports).',
    ),
  );
}
