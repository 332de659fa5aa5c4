import { Global, Module } from '@nestjs/common';
import { OutboxGauges } from './outbox-gauges';
import { OutboxService } from './outbox.service';
import { OutboxWake } from './outbox-wake';
import { OutboxStore } from './outbox.store';

@Global()
@Module({
  providers: [OutboxService, OutboxStore, OutboxWake, OutboxGauges],
  exports: [OutboxService, OutboxStore, OutboxWake],
})
export class EventsModule {}
