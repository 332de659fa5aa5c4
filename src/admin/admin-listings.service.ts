import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { OutboxService } from '../events/outbox.service';
import { ListingsService } from '../listings/listings.service';
import type { FavoritedDto, MessageReceivedDto } from './dto/admin-listing.dto';

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
      const row = await this.listings.lockAny(em, id);
      const data = {
        ...this.listings.ref(row),
        messageId: dto.messageId ?? randomUUID(),
        receivedAt: new Date().toISOString(),
        preview: dto.preview ?? null,
      };
      await this.outbox.append(em, { accountId: row.account_id, event: 'message.received', data });
      return { event: 'message.received', data };
    });
  }

  favorited(id: string, dto: FavoritedDto) {
    return this.dataSource.transaction(async (em) => {
      const row = await this.listings.lockAny(em, id);
      const data = {
        ...this.listings.ref(row),
        favoritedAt: new Date().toISOString(),
        userRef: dto.userRef ?? null,
      };
      await this.outbox.append(em, { accountId: row.account_id, event: 'listing.favorited', data });
      return { event: 'listing.favorited', data };
    });
  }
}
