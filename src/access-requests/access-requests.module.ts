import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AuditModule } from '../audit/audit.module';
import { AccessRequestsService } from './access-requests.service';
import { AccessRequestsStore } from './access-requests.store';

/** Access requests: a PENDING account asks, staff decide (admin API, CLI; the dashboard later). */
@Module({
  imports: [AccountsModule, AuditModule],
  providers: [AccessRequestsStore, AccessRequestsService],
  exports: [AccessRequestsService],
})
export class AccessRequestsModule {}
