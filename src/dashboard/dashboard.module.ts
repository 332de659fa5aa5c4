import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { PathErrorPages } from '../common/http/path-error-pages';
import { AccountsModule } from '../accounts/accounts.module';
import { AuditModule } from '../audit/audit.module';
import { ImportsModule } from '../imports/imports.module';
import { MailModule } from '../mail/mail.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { UsageModule } from '../usage/usage.module';
import { dashboardConfig } from './dashboard.config';
import { DashboardSessionsService } from './dashboard-sessions.service';
import { DashboardSessionsStore } from './dashboard-sessions.store';
import { MembershipsStore } from './memberships.store';
import { OverviewController } from './overview.controller';
import { PeopleService } from './people.service';
import { SignInController } from './sign-in.controller';
import { SignInFailuresStore } from './sign-in-failures.store';
import { SignInService } from './sign-in.service';
import { UserTokensStore } from './user-tokens.store';
import { UsersStore } from './users.store';
import { ImportsPageController } from './imports/imports-page.controller';
import { UsagePageController } from './usage/usage-page.controller';
import { DashboardExceptionFilter } from './web/dashboard-exception.filter';
import { DashboardGuard } from './web/dashboard.guard';
import { DashboardViews } from './web/views';

/**
 * The account dashboard under /dashboard (HTTP processes, DASHBOARD_ENABLED): people, sessions,
 * the pages' frame. Page modules import it for the guard, views, sessions and people.
 */
@Module({
  imports: [
    ConfigModule.forFeature(dashboardConfig),
    AccountsModule,
    AuditModule,
    MailModule,
    // Usage and Imports pages: the services the API's routes use
    UsageModule,
    RateLimitModule,
    ImportsModule,
  ],
  controllers: [OverviewController, SignInController, UsagePageController, ImportsPageController],
  providers: [
    UsersStore,
    MembershipsStore,
    DashboardSessionsStore,
    UserTokensStore,
    SignInFailuresStore,
    PeopleService,
    SignInService,
    DashboardSessionsService,
    DashboardViews,
    DashboardGuard,
    DashboardExceptionFilter,
    // The API's exception filter hands every error under /dashboard to these pages.
    { provide: PathErrorPages, useExisting: DashboardExceptionFilter },
  ],
  exports: [
    PathErrorPages,
    PeopleService,
    DashboardSessionsService,
    DashboardViews,
    DashboardGuard,
    DashboardExceptionFilter,
  ],
})
export class DashboardModule {}
