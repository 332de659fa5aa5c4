import { Module } from '@nestjs/common';
import { ImageFileCleanup } from './image-file-cleanup';
import { STORAGE_DRIVER } from './storage-driver';
import { StorageDeletionsStore } from './storage-deletions.store';
import { storageDriverProvider } from './storage-driver.provider';

@Module({
  providers: [storageDriverProvider, StorageDeletionsStore, ImageFileCleanup],
  exports: [STORAGE_DRIVER, ImageFileCleanup],
})
export class StorageModule {}
