import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { StorageModule } from '../storage/storage.module';
import { ImportGauges } from './import-gauges';
import { ImportQueueModule } from './import-queue.module';
import { ImportRetention } from './import-retention';
import { ImportsController } from './imports.controller';
import { ImportsService } from './imports.service';
import { ImportsStore } from './imports.store';

/** The imports API and store, in every role (the worker settles and queues imports too). */
@Module({
  imports: [IdempotencyModule, StorageModule, ImportQueueModule, AuditModule],
  controllers: [ImportsController],
  providers: [ImportsService, ImportsStore, ImportRetention, ImportGauges],
  exports: [ImportsService, ImportsStore, ImportRetention, ImportQueueModule],
})
export class ImportsModule {}
