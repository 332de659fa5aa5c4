import { applyDecorators, SetMetadata, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { IS_PUBLIC } from '../../auth/auth.decorators';
import { WITHOUT_ENVELOPE } from '../../common/http/envelope.interceptor';
import { DashboardExceptionFilter } from './dashboard-exception.filter';
import { DashboardGuard } from './dashboard.guard';

/**
 * A controller of the dashboard: HTML, not the API. No API key (its own sessions), no envelope,
 * not in the OpenAPI document; its guard resolves the session, checks CSRF and roles; its filter
 * answers errors with HTML pages. Handlers take `@Res()` and answer with DashboardViews.
 */
export const DashboardController = () =>
  applyDecorators(
    SetMetadata(IS_PUBLIC, true),
    SetMetadata(WITHOUT_ENVELOPE, true),
    ApiExcludeController(),
    UseGuards(DashboardGuard),
    UseFilters(DashboardExceptionFilter),
  );
