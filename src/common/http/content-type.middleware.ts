import type { NextFunction, Request, Response } from 'express';
import { ValidationError } from '../errors/domain-error';

const JSON_TYPE = 'application/json';
/** Only the image route reads multipart; elsewhere its fields would be dropped unseen. */
const MULTIPART = 'multipart/form-data';
const IMAGE_UPLOAD = /^\/listings\/[^/]+\/images\/?$/i;

/** `POST /v1/listings/:id/images`, as seen below the API prefix's mount. */
export function isImageUpload(req: Request): boolean {
  return req.method === 'POST' && IMAGE_UPLOAD.test(req.path);
}
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
  if (type === JSON_TYPE) return next();
  if (type === MULTIPART && isImageUpload(req)) return next();
  if (FEEDS.includes(type) && req.method === 'POST' && IMPORT_UPLOAD.test(req.path)) return next();
  next(
    ValidationError.field(
      'Content-Type',
      'Send the body as application/json (multipart/form-data for image uploads, application/x-ndjson or text/csv for imports).',
    ),
  );
}
