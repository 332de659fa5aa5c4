import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { NextFunction, Response } from 'express';
import type { AllConfig } from '../platform/config';
import { AuthFailureLimiter } from './auth-failure.limiter';
import { NotFoundError, UnauthorizedError } from '../common/errors/domain-error';
import { isAdminToken } from './admin-token';
import { KeyAuthenticator } from './key-authenticator';
import type { AuthenticatedRequest } from './auth.decorators';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
/** Express matches routes case-insensitively, so the admin API is recognised the same way. */
const ADMIN_PATH = /^\/admin(\/|$)/i;

/** Before the body parsers: no valid key, body unread. Only failures are limited per address. */
@Injectable()
export class AuthenticateMiddleware {
  private readonly adminToken: string | undefined;

  constructor(
    private readonly keys: KeyAuthenticator,
    private readonly authFailures: AuthFailureLimiter,
    config: ConfigService<AllConfig, true>,
  ) {
    this.adminToken = config.get('app.adminToken', { infer: true });
  }

  readonly handle = (req: AuthenticatedRequest, _res: Response, next: NextFunction): void => {
    const authenticated = ADMIN_PATH.test(req.path) ? this.admin(req) : this.apiKey(req);
    authenticated.then(() => next(), next);
  };

  private async apiKey(req: AuthenticatedRequest): Promise<void> {
    const token = BEARER.exec(req.headers.authorization ?? '')?.[1];
    const principal = token ? await this.keys.authenticate(token) : null;
    if (principal) {
      req.principal = principal;
      return;
    }
    await this.refuse(
      req,
      token
        ? new UnauthorizedError('The API key is invalid or has been revoked.')
        : new UnauthorizedError(),
    );
  }

  private async admin(req: AuthenticatedRequest): Promise<void> {
    // Without ADMIN_TOKEN the admin API does not exist; nothing to guess, nothing to count.
    if (!this.adminToken) throw new NotFoundError();
    if (isAdminToken(this.adminToken, req.headers.authorization)) return;
    await this.refuse(req, new UnauthorizedError('A valid admin token is required.'));
  }

  /** The failure is counted (a blocked address gets 429 instead), then refused. */
  private async refuse(req: AuthenticatedRequest, error: UnauthorizedError): Promise<never> {
    await this.authFailures.recordFailure(req.ip);
    throw error;
  }
}
