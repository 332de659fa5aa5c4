import { Module } from '@nestjs/common';
import { ImageFileCleanup } from './image-file-cleanup';
import { STORAGE_DRIVER } from './storage-driver';
import { storageDriverProvider } from './storage-driver.provider';

@Module({
  providers: [storageDriverProvider, ImageFileCleanup],
  exports: [STORAGE_DRIVER, ImageFileCleanup],
})
export class StorageModule {}
