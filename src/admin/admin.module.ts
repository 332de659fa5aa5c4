import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ListingsModule } from '../listings/listings.module';
import { AdminAccountsController } from './admin-accounts.controller';
import { AdminListingsController } from './admin-listings.controller';
import { AdminListingsService } from './admin-listings.service';
import { AdminTokenGuard } from './admin-token.guard';

@Module({
  imports: [AccountsModule, ListingsModule],
  controllers: [AdminAccountsController, AdminListingsController],
  providers: [AdminTokenGuard, AdminListingsService],
})
export class AdminModule {}
