import type { Provider } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../platform/config';
import { LocalDiskStorage } from './local-disk.storage';
import { S3Storage } from './s3.storage';
import { STORAGE_DRIVER, StorageDriver } from './storage-driver';

export const storageDriverProvider: Provider = {
  provide: STORAGE_DRIVER,
  inject: [ConfigService],
  useFactory: (config: ConfigService<AllConfig, true>): StorageDriver => {
    const storage = config.get('storage', { infer: true });
    if (!storage.s3) return new LocalDiskStorage(config);
    return new S3Storage(
      storage.s3,
      config.get('app.publicBaseUrl', { infer: true }),
      storage.mediaPublicBaseUrl,
    );
  },
};
