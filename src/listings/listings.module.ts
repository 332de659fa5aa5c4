import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { GalleryModule } from './gallery/gallery.module';
import { StorageModule } from '../storage/storage.module';
import { ReferenceModule } from '../reference/reference.module';
import { ListingCountsService } from './listing-counts.service';
import { ListingValidator } from './listing-validator';
import { ListingsController } from './listings.controller';
import { ListingsService } from './listings.service';
import { ListingsStore } from './listings.store';

@Module({
  imports: [ReferenceModule, IdempotencyModule, StorageModule, GalleryModule],
  controllers: [ListingsController],
  providers: [ListingsService, ListingsStore, ListingCountsService, ListingValidator],
  exports: [ListingsService, ListingsStore, ListingCountsService],
})
export class ListingsModule {}
