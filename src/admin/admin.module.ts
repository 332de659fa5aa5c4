import { Module } from '@nestjs/common';
import { AccessRequestsModule } from '../access-requests/access-requests.module';
import { AccountsModule } from '../accounts/accounts.module';
import { AuditModule } from '../audit/audit.module';
import { AdminAccessRequestsController } from './admin-access-requests.controller';
import { ListingsModule } from '../listings/listings.module';
import { AdminAccountsController } from './admin-accounts.controller';
import { AdminListingsController } from './admin-listings.controller';
import { AdminListingsService } from './admin-listings.service';
import { AdminTokenGuard } from './admin-token.guard';

@Module({
  imports: [AccountsModule, AccessRequestsModule, AuditModule, ListingsModule],
  controllers: [AdminAccountsController, AdminAccessRequestsController, AdminListingsController],
  providers: [AdminTokenGuard, AdminListingsService],
})
export class AdminModule {}
