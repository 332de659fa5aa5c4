import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ListingsModule } from '../listings/listings.module';
import { MailModule } from '../mail/mail.module';
import { AdminAccountsController } from './admin-accounts.controller';
import { AdminEmailsController } from './admin-emails.controller';
import { AdminListingsController } from './admin-listings.controller';
import { AdminListingsService } from './admin-listings.service';
import { AdminTokenGuard } from './admin-token.guard';

@Module({
  imports: [AccountsModule, ListingsModule, MailModule],
  controllers: [AdminAccountsController, AdminListingsController, AdminEmailsController],
  providers: [AdminTokenGuard, AdminListingsService],
})
export class AdminModule {}
