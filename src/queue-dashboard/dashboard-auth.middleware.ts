import type { ConfigService } from '@nestjs/config';
import type { NextFunction, Request, Response } from 'express';
import { tokenMatches } from '../auth/admin-token';
import { RateLimitedError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { errorEnvelope } from '../common/http/envelope';
import type { AllConfig } from '../platform/config';
import type { AuthFailureLimiter } from '../auth/auth-failure.limiter';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const BASIC = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i;

/** Bearer token or (browsers) the basic-auth password; failures count toward the address limit. */
export function dashboardAuth(
  config: ConfigService<AllConfig, true>,
  authFailures: AuthFailureLimiter,
) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const expected = config.get('app.adminToken', { infer: true });
    if (!expected) {
      res.status(404).json(errorEnvelope(req, ErrorCode.NOT_FOUND, 'Resource not found.'));
      return;
    }
    const given = presentedToken(req.headers.authorization ?? '');
    if (given !== undefined && tokenMatches(given, expected)) {
      next();
      return;
    }
    try {
      await authFailures.recordFailure(req.ip);
    } catch (error) {
      if (!(error instanceof RateLimitedError)) throw error;
      res.setHeader('Retry-After', String(error.retryAfterSeconds));
      res.status(429).json(errorEnvelope(req, ErrorCode.RATE_LIMITED, error.message));
      return;
    }
    res.setHeader('WWW-Authenticate', 'Basic realm="queue dashboard", charset="UTF-8"');
    res
      .status(401)
      .json(errorEnvelope(req, ErrorCode.UNAUTHORIZED, 'A valid admin token is required.'));
  };
}

function presentedToken(header: string): string | undefined {
  const bearer = BEARER.exec(header)?.[1];
  if (bearer) return bearer;
  const basic = BASIC.exec(header)?.[1];
  if (!basic) return undefined;
  const decoded = Buffer.from(basic, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}
