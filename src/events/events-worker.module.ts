import { Module } from '@nestjs/common';
import { FeedPositioner } from './feed-positioner';

/** For the worker role: gives committed events their feed positions. */
@Module({
  providers: [FeedPositioner],
})
export class EventsWorkerModule {}
