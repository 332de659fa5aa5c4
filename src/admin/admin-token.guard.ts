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

/** Keeps admin controllers closed (404 without ADMIN_TOKEN) whatever path reaches them. */
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
