import { Module } from '@nestjs/common';
import { ListingsModule } from '../listings/listings.module';
import { ImageProcessor } from './image-processor';
import { ImagesController } from './images.controller';
import { ImagesService } from './images.service';
import { LocalDiskStorage } from './storage/local-disk.storage';
import { STORAGE_DRIVER } from './storage/storage-driver';

@Module({
  imports: [ListingsModule],
  controllers: [ImagesController],
  providers: [
    ImagesService,
    ImageProcessor,
    { provide: STORAGE_DRIVER, useClass: LocalDiskStorage },
  ],
})
export class ImagesModule {}
