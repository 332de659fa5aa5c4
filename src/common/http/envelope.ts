import type { Request } from 'express';
import { ErrorCode } from '../errors/error-code';
import type { CursorPaginationMeta } from '../pagination/cursor-page';
import type { FieldError } from '../errors/domain-error';
import { requestIdOf } from '../../platform/logging/request-id';

export interface Meta {
  requestId: string;
  timestamp: string;
}

export interface PaginationMeta {
  page: number;
  limit: number;
  total: number;
  pages: number;
  hasMore: boolean;
}

export interface SuccessEnvelope<T> {
  success: true;
  data: T;
  pagination?: PaginationMeta | CursorPaginationMeta;
  meta: Meta;
}

export interface ErrorEnvelope {
  success: false;
  error: { code: ErrorCode; message: string; details?: FieldError[] };
  meta: Meta;
}

export function metaFor(req: Request): Meta {
  return { requestId: requestIdOf(req), timestamp: new Date().toISOString() };
}

export function errorEnvelope(
  req: Request,
  code: ErrorCode,
  message: string,
  details?: FieldError[],
): ErrorEnvelope {
  return errorEnvelopeWith(metaFor(req), code, message, details);
}

/** The same for an answer given without a request object (one Node's HTTP parser refused). */
export function errorEnvelopeWith(
  meta: Meta,
  code: ErrorCode,
  message: string,
  details?: FieldError[],
): ErrorEnvelope {
  return {
    success: false,
    error: details && details.length > 0 ? { code, message, details } : { code, message },
    meta,
  };
}
