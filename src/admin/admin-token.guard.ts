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
import { createHash, timingSafeEqual } from 'node:crypto';
import { IS_ADMIN_ROUTE } from '../common/auth/auth.decorators';
import { NotFoundError, UnauthorizedError } from '../common/errors/domain-error';
import type { AllConfig } from '../config';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Comparing digests keeps the comparison constant-time whatever the lengths. */
export function isAdminToken(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** Without ADMIN_TOKEN the admin API does not exist (404); with it, the token must match exactly. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(private readonly config: ConfigService<AllConfig, true>) {}

  canActivate(context: ExecutionContext): boolean {
    const expected = this.config.get('app.adminToken', { infer: true });
    if (!expected) throw new NotFoundError();
    const header = context.switchToHttp().getRequest<Request>().headers.authorization ?? '';
    const given = /^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? '';
    if (!isAdminToken(given, expected))
      throw new UnauthorizedError('A valid admin token is required.');
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
