import { Module } from '@nestjs/common';
import { ImageFileCleanup } from './image-file-cleanup';
import { LocalDiskStorage } from './local-disk.storage';
import { STORAGE_DRIVER } from './storage-driver';

/** Image files: the storage driver, and the clean-up of files whose images are gone. */
@Module({
  providers: [{ provide: STORAGE_DRIVER, useClass: LocalDiskStorage }, ImageFileCleanup],
  exports: [STORAGE_DRIVER, ImageFileCleanup],
})
export class StorageModule {}
