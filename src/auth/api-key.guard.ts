import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Scope } from './principal';
import { ForbiddenError, UnauthorizedError } from '../common/errors/domain-error';
import {
  AuthenticatedRequest,
  IS_ADMIN_ROUTE,
  IS_PUBLIC,
  REQUIRED_SCOPES,
} from './auth.decorators';

/** Checks account status and route scopes; AuthenticateMiddleware already resolved the key. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    if (this.reflector.getAllAndOverride<boolean>(IS_ADMIN_ROUTE, targets)) return true;

    const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
    // A route the middleware does not cover (outside the API prefix) cannot be reached with a key.
    if (!principal) throw new UnauthorizedError();

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
