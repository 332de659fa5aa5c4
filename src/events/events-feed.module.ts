import { Module } from '@nestjs/common';
import { EventsController } from './events.controller';
import { EventsFeedService } from './events-feed.service';

/** GET /events, for the API role; the feed's positions come from the worker's FeedPositioner. */
@Module({
  controllers: [EventsController],
  providers: [EventsFeedService],
})
export class EventsFeedModule {}
