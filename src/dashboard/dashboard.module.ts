import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { PathErrorPages } from '../common/http/path-error-pages';
import { AccessRequestsModule } from '../access-requests/access-requests.module';
import { AccountsModule } from '../accounts/accounts.module';
import { AuditModule } from '../audit/audit.module';
import { ListingsModule } from '../listings/listings.module';
import { MailModule } from '../mail/mail.module';
import { TestHelpersModule } from '../test-helpers/test-helpers.module';
import { ImportsModule } from '../imports/imports.module';
import { UsageModule } from '../usage/usage.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { AccessController } from './access/access.controller';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { dashboardConfig } from './dashboard.config';
import { DashboardSessionsService } from './dashboard-sessions.service';
import { DashboardSessionsStore } from './dashboard-sessions.store';
import { MembersController } from './members/members.controller';
import { MembersService } from './members/members.service';
import { MembershipsStore } from './memberships.store';
import { KeysController } from './keys/keys.controller';
import { OverviewController } from './overview.controller';
import { OverviewFactsReader } from './overview-facts';
import { PeopleService } from './people.service';
import { SandboxController } from './sandbox/sandbox.controller';
import { SecurityLogController } from './security-log/security-log.controller';
import { SignInController } from './sign-in.controller';
import { SignInFailuresStore } from './sign-in-failures.store';
import { SignInService } from './sign-in.service';
import { UserTokensStore } from './user-tokens.store';
import { UsersStore } from './users.store';
import { WebhooksPageController } from './webhooks/webhooks.controller';
import { ImportsPageController } from './imports/imports-page.controller';
import { UsagePageController } from './usage/usage-page.controller';
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
    // Members, Sandbox, Security log
    ListingsModule,
    TestHelpersModule,
    AccessRequestsModule,
    UsageModule,
    WebhooksModule,
    ImportsModule,
    RateLimitModule,
  ],
  controllers: [
    OverviewController,
    SignInController,
    AccessController,
    KeysController,
    MembersController,
    SandboxController,
    SecurityLogController,
    WebhooksPageController,
    UsagePageController,
    ImportsPageController,
  ],
  providers: [
    UsersStore,
    MembershipsStore,
    DashboardSessionsStore,
    UserTokensStore,
    SignInFailuresStore,
    PeopleService,
    MembersService,
    SignInService,
    DashboardSessionsService,
    DashboardViews,
    DashboardGuard,
    DashboardExceptionFilter,
    FormOnce,
    OverviewFactsReader,
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
