import { Inject, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { ListingsModule } from '../listings/listings.module';
import { GalleryModule } from '../listings/gallery/gallery.module';
import { ImageProcessor } from './image-processor';
import { ImagesController } from './images.controller';
import { ImagesService } from './images.service';
import { ImageJobsStore } from './pipeline/image-jobs.store';
import { MEDIA_ROUTE, STORAGE_DRIVER, StorageDriver } from '../storage/storage-driver';
import { StorageModule } from '../storage/storage.module';

@Module({
  imports: [ListingsModule, StorageModule, GalleryModule],
  controllers: [ImagesController],
  providers: [ImagesService, ImageProcessor, ImageJobsStore],
})
export class ImagesModule implements NestModule {
  constructor(@Inject(STORAGE_DRIVER) private readonly storage: StorageDriver) {}

  /** The public files, outside the /v1 prefix (configure-app excludes MEDIA_ROUTE). */
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(this.storage.mediaHandler())
      .forRoutes({ path: MEDIA_ROUTE, method: RequestMethod.ALL });
  }
}
