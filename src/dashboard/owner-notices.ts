import { Global, Inject, Injectable, Module } from '@nestjs/common';
import { ConfigModule, type ConfigType } from '@nestjs/config';
import type { EntityManager } from 'typeorm';
import {
  AccessDecisionNotice,
  AccessDecisionNotifier,
} from '../access-requests/access-decision-notifier';
import { LiveKeyNotice, LiveKeyNotifier } from '../accounts/live-key-notifier';
import { MailModule } from '../mail/mail.module';
import { MailService } from '../mail/mail.service';
import { dashboardConfig } from './dashboard.config';
import { MembershipsStore } from './memberships.store';

/**
 * Mails the account's owners what staff decided and when a live key is made: the ports of
 * AccessRequestsService and ApiKeysService, so every door (dashboard, admin API, CLI) sends them,
 * in the change's own transaction (kept in the outbox, or sent once it commits). Never a key.
 */
@Injectable()
export class OwnerNotices implements AccessDecisionNotifier, LiveKeyNotifier {
  constructor(
    private readonly memberships: MembershipsStore,
    private readonly mail: MailService,
    @Inject(dashboardConfig.KEY) private readonly config: ConfigType<typeof dashboardConfig>,
  ) {}

  async decided(em: EntityManager, notice: AccessDecisionNotice): Promise<void> {
    const approved = notice.decision === 'approved';
    const text = approved
      ? `Your account's request for API access is approved.\n\n` +
        `You can now create API keys in the dashboard:\n${this.config.baseUrl}/dashboard/keys\n`
      : `Your account's request for API access was rejected.\n\n` +
        `Reason: ${notice.request?.rejectionReason ?? '(none given)'}\n\n` +
        `You can send a new request in the dashboard:\n${this.config.baseUrl}/dashboard/access\n`;
    await this.toOwners(em, notice.accountId, {
      subject: approved
        ? 'Your Listings Service API access is approved'
        : 'Your Listings Service API access request was rejected',
      text,
    });
  }

  async liveKeyCreated(em: EntityManager, notice: LiveKeyNotice): Promise<void> {
    await this.toOwners(em, notice.accountId, {
      subject: 'A new live API key was created',
      text:
        `A new live API key named "${notice.name}" was ${notice.how === 'rolled' ? 'made by rolling a key' : 'created'} ` +
        `for your account at ${notice.createdAt.toISOString()}.\n\n` +
        `If you do not know of it, revoke it in the dashboard:\n${this.config.baseUrl}/dashboard/keys\n`,
    });
  }

  private async toOwners(
    em: EntityManager,
    accountId: string,
    message: { subject: string; text: string },
  ): Promise<void> {
    for (const to of await this.memberships.ownerEmails(accountId, em))
      await this.mail.send({ to, ...message }, em);
  }
}

/**
 * Provides the ports to every module (global): the application and the CLI import it once, so
 * the admin API's and the CLI's decisions and keys mail the owners as the dashboard's do.
 */
@Global()
@Module({
  imports: [ConfigModule.forFeature(dashboardConfig), MailModule],
  providers: [
    MembershipsStore,
    OwnerNotices,
    { provide: AccessDecisionNotifier, useExisting: OwnerNotices },
    { provide: LiveKeyNotifier, useExisting: OwnerNotices },
  ],
  exports: [AccessDecisionNotifier, LiveKeyNotifier],
})
export class OwnerNoticesModule {}
