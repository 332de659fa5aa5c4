import { Module } from '@nestjs/common';
import { AuditRetention } from './audit-retention';
import { AuditService } from './audit.service';
import { AuditStore } from './audit.store';

/** The append-only audit log: every door records through AuditService. */
@Module({
  providers: [AuditStore, AuditService],
  exports: [AuditService, AuditStore],
})
export class AuditModule {}

/** The worker's side: the purge after AUDIT_RETENTION. */
@Module({
  imports: [AuditModule],
  providers: [AuditRetention],
})
export class AuditWorkerModule {}
