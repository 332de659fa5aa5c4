import { Module } from '@nestjs/common';
import { AccessRequestsModule } from '../access-requests/access-requests.module';
import { AccountsModule } from '../accounts/accounts.module';
import { AuditModule } from '../audit/audit.module';
import { AdminAccessRequestsController } from './admin-access-requests.controller';
import { ListingsModule } from '../listings/listings.module';
import { MailModule } from '../mail/mail.module';
import { AdminAccountsController } from './admin-accounts.controller';
import { AdminEmailsController } from './admin-emails.controller';
import { AdminListingsController } from './admin-listings.controller';
import { AdminListingsService } from './admin-listings.service';
import { AdminTokenGuard } from './admin-token.guard';

@Module({
  imports: [AccountsModule, AccessRequestsModule, AuditModule, ListingsModule, MailModule],
  controllers: [
    AdminAccountsController,
    AdminAccessRequestsController,
    AdminListingsController,
    AdminEmailsController,
  ],
  providers: [AdminTokenGuard, AdminListingsService],
})
export class AdminModule {}
