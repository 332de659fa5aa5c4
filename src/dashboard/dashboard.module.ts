import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { PathErrorPages } from '../common/http/path-error-pages';
import { AccountsModule } from '../accounts/accounts.module';
import { AuditModule } from '../audit/audit.module';
import { MailModule } from '../mail/mail.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
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
import { WebhooksPageController } from './webhooks/webhooks.controller';
import { DashboardExceptionFilter } from './web/dashboard-exception.filter';
import { DashboardGuard } from './web/dashboard.guard';
import { FormOnce } from './web/form-once';
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
    WebhooksModule,
  ],
  controllers: [OverviewController, SignInController, WebhooksPageController],
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
    FormOnce,
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
    FormOnce,
  ],
})
export class DashboardModule {}
