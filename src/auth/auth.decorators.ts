import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';
import type { Scope } from './principal';
import type { Principal } from './principal';

export const IS_PUBLIC = 'auth:public';
export const REQUIRED_SCOPES = 'auth:scopes';
export const IS_ADMIN_ROUTE = 'auth:admin';

/** No API key needed (health). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** The key must carry every listed scope, else 403. */
export const Scopes = (...scopes: Scope[]) => SetMetadata(REQUIRED_SCOPES, scopes);

export type AuthenticatedRequest = Request & { principal?: Principal };

export const CurrentPrincipal = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): Principal => {
    const principal = ctx.switchToHttp().getRequest<AuthenticatedRequest>().principal;
    if (!principal)
      throw new Error('CurrentPrincipal used on a route without API-key authentication');
    return principal;
  },
);
