import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AllConfig } from '../../config';
import type { StorageDriver } from './storage-driver';

export const MEDIA_PATH = '/media';

/** Files under STORAGE_DIR, served publicly at {PUBLIC_BASE_URL}/media/<key> (see configure-app). */
@Injectable()
export class LocalDiskStorage implements StorageDriver {
  private readonly dir: string;
  private readonly baseUrl: string;

  constructor(config: ConfigService<AllConfig, true>) {
    this.dir = config.get('storage.dir', { infer: true });
    this.baseUrl = `${config.get('app.publicBaseUrl', { infer: true })}${MEDIA_PATH}`;
  }

  async put(key: string, data: Buffer): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    // Write then rename, so a reader never sees half a file.
    const temporary = join(this.dir, `.${key}.tmp`);
    await writeFile(temporary, data);
    await rename(temporary, join(this.dir, key));
  }

  async delete(key: string): Promise<void> {
    await rm(join(this.dir, key), { force: true });
  }

  publicUrl(key: string): string {
    return `${this.baseUrl}/${key}`;
  }
}
