import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OutboxService } from '../events/outbox.service';
import { ListingsService } from '../listings/listings.service';
import type { FavoritedDto, MessageReceivedDto } from '../listings/dto/listing-activity.dto';
import { favorited, messageReceived } from '../listings/listing-activity';

/** Stands in for moderation, messaging and favourites: each call writes the event they would. */
@Injectable()
export class AdminListingsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly listings: ListingsService,
    private readonly outbox: OutboxService,
  ) {}

  remove(id: string, reason: string) {
    return this.listings.adminRemove(id, reason);
  }

  messageReceived(id: string, dto: MessageReceivedDto) {
    return this.dataSource.transaction(async (em) => {
      const event = messageReceived(await this.listings.lockAny(em, id), dto);
      await this.outbox.append(em, event);
      return { event: event.event, data: event.data };
    });
  }

  favorited(id: string, dto: FavoritedDto) {
    return this.dataSource.transaction(async (em) => {
      const event = favorited(await this.listings.lockAny(em, id), dto);
      await this.outbox.append(em, event);
      return { event: event.event, data: event.data };
    });
  }
}
