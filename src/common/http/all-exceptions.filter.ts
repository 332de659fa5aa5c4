import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  Logger,
  Optional,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request, Response } from 'express';
import { DomainError, FieldError, RateLimitedError } from '../errors/domain-error';
import { ERROR_HTTP_STATUS, ErrorCode } from '../errors/error-code';
import { errorEnvelope } from './envelope';
import { PathErrorPages } from './path-error-pages';
import type { AllConfig } from '../../platform/config';
import { requestIdOf } from '../../platform/logging/request-id';
import { isDatabaseUnavailable } from '../db/pg-errors';

interface Mapped {
  code: ErrorCode;
  message: string;
  details?: FieldError[];
  retryAfterSeconds?: number;
}

/** A database that is down or silent: when to try again, and how often to say so in the log. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
const UNAVAILABLE_LOG_EVERY_MS = 10_000;
const POSTGRES_PORT = 5432;

/** body-parser raises these before any route runs; each is the client's fault. */
const BODY_PARSER_ERRORS: Record<string, string> = {
  'entity.parse.failed': 'The body is not valid JSON.',
  'entity.too.large': 'The body is larger than this endpoint accepts.',
  'entity.verify.failed': 'The body could not be verified.',
  'encoding.unsupported': 'The body encoding is not supported.',
  'charset.unsupported': 'The body charset is not supported; use UTF-8.',
  'request.aborted': 'The request was aborted.',
  'request.size.invalid': 'The body size does not match Content-Length.',
};

const MULTER_MESSAGES: Record<string, string> = {
  LIMIT_FILE_SIZE: 'The file is larger than 10 MB.',
  LIMIT_FILE_COUNT: 'Send one file per request.',
  LIMIT_UNEXPECTED_FILE: 'The file must be sent in the field `file`.',
  LIMIT_PART_COUNT: 'Too many parts in the multipart body.',
  LIMIT_FIELD_COUNT: 'Too many fields in the multipart body.',
  LIMIT_FIELD_VALUE: 'A multipart field is too long.',
};

/**
 * Path parameters that are the caller's own text rather than a resource's id: a segment that does
 * not decode is invalid text there (400 naming it); anywhere else it names nothing (404).
 */
const TEXT_PATH_PARAMS: { method: string; path: RegExp; field: string }[] = [
  { method: 'PUT', path: /^\/v1\/listings\/by-external-id\/[^/]*$/, field: 'externalId' },
];

function statusToCode(status: number): ErrorCode {
  if (status === 401) return ErrorCode.UNAUTHORIZED;
  if (status === 403) return ErrorCode.FORBIDDEN;
  if (status === 404 || status === 405) return ErrorCode.NOT_FOUND;
  if (status === 429) return ErrorCode.RATE_LIMITED;
  if (status >= 400 && status < 500) return ErrorCode.VALIDATION_ERROR;
  return ErrorCode.SERVER_ERROR;
}

/** The one place anything thrown becomes an answer in the envelope; unknown errors are 500s. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Exceptions');
  private unavailableLoggedAt = -Infinity;
  private unavailableUnlogged = 0;
  /** a network error of a connection to this port is the database's */
  private readonly databasePort: number;

  constructor(
    config: ConfigService<AllConfig, true>,
    @Optional() private readonly pages?: PathErrorPages,
  ) {
    const url = new URL(config.get('database', { infer: true }).url);
    this.databasePort = Number(url.port || POSTGRES_PORT);
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    if (this.pages?.owns(req.path)) return this.pages.catch(exception, host);
    const mapped = this.map(exception, req);
    const retryAfter =
      exception instanceof RateLimitedError
        ? exception.retryAfterSeconds
        : mapped.retryAfterSeconds;
    if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
    if (res.headersSent) {
      res.end();
      return;
    }
    res
      .status(ERROR_HTTP_STATUS[mapped.code])
      .json(errorEnvelope(req, mapped.code, mapped.message, mapped.details));
  }

  private map(exception: unknown, req: Request): Mapped {
    // Express-level errors (body-parser, malformed URLs) arrive wrapped in an HttpException; so
    // does a DomainError thrown by the body parser's verify hook.
    const cause = exception instanceof HttpException ? exception.cause : undefined;
    const domain = exception instanceof DomainError ? exception : cause;
    if (domain instanceof DomainError) {
      return { code: domain.code, message: domain.message, details: domain.details };
    }
    if ((cause ?? exception) instanceof URIError) return undecodablePath(req);
    const bodyError = this.mapBodyParserError(cause ?? exception);
    if (bodyError) return bodyError;
    const multerError = this.mapMulterError(cause ?? exception);
    if (multerError) return multerError;
    const unreadable = unreadableBody(exception, req);
    if (unreadable) return unreadable;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code = statusToCode(status);
      if (code !== ErrorCode.SERVER_ERROR) {
        return {
          code,
          message: code === ErrorCode.NOT_FOUND ? 'Resource not found.' : exception.message,
        };
      }
    }
    if (isDatabaseUnavailable(cause ?? exception, this.databasePort))
      return this.databaseUnavailable(exception, req);
    this.logger.error(
      { err: exception, requestId: requestIdOf(req), method: req.method, path: req.path },
      'Unhandled error',
    );
    return {
      code: ErrorCode.SERVER_ERROR,
      message: 'Internal error. Retry, or contact support with the requestId.',
    };
  }

  /**
   * Still SERVER_ERROR (the contract's code for a failure on our side), but saying that a retry
   * will do and when; logged as one warning per interval, not a stack per request.
   */
  private databaseUnavailable(exception: unknown, req: Request): Mapped {
    const now = Date.now();
    if (now - this.unavailableLoggedAt >= UNAVAILABLE_LOG_EVERY_MS) {
      this.unavailableLoggedAt = now;
      const reason = exception instanceof Error ? exception.message : String(exception);
      this.logger.warn(
        {
          reason,
          requestId: requestIdOf(req),
          method: req.method,
          path: req.path,
          alsoAnsweredSoSinceLastWarning: this.unavailableUnlogged,
        },
        'Database unavailable; requests answer 500 with Retry-After',
      );
      this.unavailableUnlogged = 0;
    } else {
      this.unavailableUnlogged++;
    }
    return {
      code: ErrorCode.SERVER_ERROR,
      message: 'The database did not answer in time. Retry in a few seconds.',
      retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
    };
  }

  private mapBodyParserError(exception: unknown): Mapped | undefined {
    const type = (exception as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || !(type in BODY_PARSER_ERRORS)) return undefined;
    const message = isJsonOtherThanObject(exception)
      ? 'body must be a JSON object'
      : BODY_PARSER_ERRORS[type];
    return { code: ErrorCode.VALIDATION_ERROR, message, details: [{ field: 'body', message }] };
  }

  private mapMulterError(exception: unknown): Mapped | undefined {
    const e = exception as { name?: unknown; code?: unknown; field?: unknown } | null;
    if (e?.name !== 'MulterError' || typeof e.code !== 'string') return undefined;
    const message = MULTER_MESSAGES[e.code] ?? 'The multipart body is invalid.';
    const field = typeof e.field === 'string' ? e.field : 'file';
    return { code: ErrorCode.VALIDATION_ERROR, message, details: [{ field, message }] };
  }
}

/** The router could not percent-decode a path segment (`%FF`, `%zz`, a lone surrogate). */
function undecodablePath(req: Request): Mapped {
  const param = TEXT_PATH_PARAMS.find((p) => p.method === req.method && p.path.test(req.path));
  if (!param) return { code: ErrorCode.NOT_FOUND, message: 'Resource not found.' };
  const message = `${param.field} is not valid percent-encoded UTF-8`;
  return { code: ErrorCode.VALIDATION_ERROR, message, details: [{ field: param.field, message }] };
}

/**
 * A 400 raised while a body was read that no mapping above knew: the decompression of a body
 * sent with a Content-Encoding, or busboy's parse of a multipart one. Their own messages (zlib's,
 * busboy's) say nothing an integrator can act on.
 */
function unreadableBody(exception: unknown, req: Request): Mapped | undefined {
  // Wrapped by Express before any route; as body-parser raised it (http-errors) within one.
  const status =
    exception instanceof HttpException
      ? exception.getStatus()
      : (exception as { status?: unknown } | null)?.status;
  if (status !== 400) return undefined;
  const encoding = req.headers['content-encoding'];
  const message =
    encoding && encoding !== 'identity'
      ? 'The body could not be decoded as its Content-Encoding says.'
      : req.is('multipart/*')
        ? 'The multipart body is malformed or incomplete.'
        : undefined;
  if (!message) return undefined;
  return { code: ErrorCode.VALIDATION_ERROR, message, details: [{ field: 'body', message }] };
}

/** body-parser's strict mode refuses valid JSON that is not an object or array (`null`, `"x"`). */
function isJsonOtherThanObject(error: unknown): boolean {
  const { type, body } = error as { type?: unknown; body?: unknown };
  if (type !== 'entity.parse.failed' || typeof body !== 'string') return false;
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}
