import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { ListingsModule } from '../listings/listings.module';
import { BulkController } from './bulk.controller';
import { BulkService } from './bulk.service';

@Module({
  imports: [ListingsModule, IdempotencyModule],
  controllers: [BulkController],
  providers: [BulkService],
})
export class BulkModule {}
