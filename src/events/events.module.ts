import { Global, Module } from '@nestjs/common';
import { OutboxService } from './outbox.service';
import { OutboxWake } from './outbox-wake';
import { OutboxStore } from './outbox.store';

@Global()
@Module({
  providers: [OutboxService, OutboxStore, OutboxWake],
  exports: [OutboxService, OutboxStore, OutboxWake],
})
export class EventsModule {}
