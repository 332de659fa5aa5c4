import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiKeysService } from '../../accounts/api-keys.service';
import type { Scope } from '../../accounts/api-key.entity';
import { AuthFailureLimiter } from '../../rate-limit/auth-failure.limiter';
import { ForbiddenError, UnauthorizedError } from '../errors/domain-error';
import {
  AuthenticatedRequest,
  IS_ADMIN_ROUTE,
  IS_PUBLIC,
  REQUIRED_SCOPES,
} from './auth.decorators';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Global: every route needs an API key unless marked @Public() or served by the admin API.
 * Failed authentications count per client address; past the limit they answer 429, not 401.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
    private readonly authFailures: AuthFailureLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    if (this.reflector.getAllAndOverride<boolean>(IS_ADMIN_ROUTE, targets)) return true;

    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    this.authFailures.assertNotBlocked(req.ip);
    const token = BEARER.exec(req.headers.authorization ?? '')?.[1];
    const principal = token ? await this.apiKeys.authenticate(token) : null;
    if (!principal) {
      await this.authFailures.recordFailure(req.ip);
      throw token
        ? new UnauthorizedError('The API key is invalid or has been revoked.')
        : new UnauthorizedError();
    }
    req.principal = principal;

    if (principal.accountStatus !== 'APPROVED') {
      throw new ForbiddenError(
        `API access for this account is ${principal.accountStatus.toLowerCase()}, not approved.`,
      );
    }
    const required =
      this.reflector.getAllAndOverride<Scope[] | undefined>(REQUIRED_SCOPES, targets) ?? [];
    const missing = required.filter((scope) => !principal.scopes.includes(scope));
    if (missing.length > 0)
      throw new ForbiddenError(`This API key lacks the scope ${missing.join(', ')}.`);
    return true;
  }
}
