import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AdminAccountsController } from './admin-accounts.controller';
import { AdminTokenGuard } from './admin-token.guard';

@Module({
  imports: [AccountsModule],
  controllers: [AdminAccountsController],
  providers: [AdminTokenGuard],
})
export class AdminModule {}
