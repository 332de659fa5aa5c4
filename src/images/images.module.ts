import { Module } from '@nestjs/common';
import { ListingsModule } from '../listings/listings.module';
import { ImageProcessor } from './image-processor';
import { ImagesController } from './images.controller';
import { ImagesService } from './images.service';
import { StorageModule } from './storage/storage.module';

@Module({
  imports: [ListingsModule, StorageModule],
  controllers: [ImagesController],
  providers: [ImagesService, ImageProcessor],
})
export class ImagesModule {}
