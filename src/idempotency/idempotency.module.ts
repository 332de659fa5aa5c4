import { Module } from '@nestjs/common';
import { IdempotencyService } from './idempotency.service';
import { IdempotencyStore } from './idempotency.store';

@Module({
  providers: [IdempotencyService, IdempotencyStore],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
