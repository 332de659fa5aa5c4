import { Global, Module } from '@nestjs/common';
import { OutboxService } from './outbox.service';
import { OutboxStore } from './outbox.store';

@Global()
@Module({
  providers: [OutboxService, OutboxStore],
  exports: [OutboxService, OutboxStore],
})
export class EventsModule {}
