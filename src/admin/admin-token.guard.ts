import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { assertAdminToken } from '../auth/admin-token';
import { IS_ADMIN_ROUTE } from '../auth/auth.decorators';
import type { AllConfig } from '../platform/config';

/**
 * Without ADMIN_TOKEN the admin API does not exist (404); with it, the token must match exactly.
 * AuthenticateMiddleware checks (and counts failures) before the body is read; the guard keeps
 * the admin controllers closed whatever path reaches them.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(private readonly config: ConfigService<AllConfig, true>) {}

  canActivate(context: ExecutionContext): boolean {
    assertAdminToken(
      this.config.get('app.adminToken', { infer: true }),
      context.switchToHttp().getRequest<Request>().headers.authorization,
    );
    return true;
  }
}

/** Marks a controller as internal admin API: its own token, none of the API-key rules. */
export const AdminApi = () =>
  applyDecorators(
    SetMetadata(IS_ADMIN_ROUTE, true),
    UseGuards(AdminTokenGuard),
    ApiExcludeController(),
  );
