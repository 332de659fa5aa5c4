import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { RequestHandler, static as serveStatic } from 'express';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AllConfig } from '../platform/config';
import { MEDIA_CACHE_MAX_AGE_S, MEDIA_PATH, mediaKey, StorageDriver } from './storage-driver';

/** Files under STORAGE_DIR, served publicly at {PUBLIC_BASE_URL}/media/<key>. */
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
    const temporary = this.temporaryPath(key);
    await writeFile(temporary, data);
    await rename(temporary, join(this.dir, key));
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(join(this.dir, key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** The half-written copy too: a process killed inside put() leaves it under the key's name. */
  async delete(key: string): Promise<void> {
    await Promise.all([
      rm(join(this.dir, key), { force: true }),
      rm(this.temporaryPath(key), { force: true }),
    ]);
  }

  private temporaryPath(key: string): string {
    return join(this.dir, `.${key}.tmp`);
  }

  async putPrivate(key: string, data: Readable): Promise<void> {
    const path = this.privatePath(key);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.tmp`;
    try {
      await pipeline(data, createWriteStream(temporary));
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    await rename(temporary, path);
  }

  async readPrivate(key: string): Promise<Readable> {
    const stream = createReadStream(this.privatePath(key));
    // Fail here, not on the first read, when the file is missing.
    await new Promise<void>((resolve, reject) =>
      stream.once('open', () => resolve()).once('error', reject),
    );
    return stream;
  }

  async deletePrivate(key: string): Promise<void> {
    await rm(this.privatePath(key), { force: true });
  }

  /** A dot directory, which the media handler never serves. */
  private privatePath(key: string): string {
    return join(this.dir, '.private', key);
  }

  publicUrl(key: string): string {
    return `${this.baseUrl}/${key}`;
  }

  mediaHandler(): RequestHandler {
    const serve = serveStatic(this.dir, {
      immutable: true,
      maxAge: MEDIA_CACHE_MAX_AGE_S * 1000,
      index: false,
      dotfiles: 'ignore',
    });
    // serve-static resolves req.url under the directory; it is given the key alone, and the
    // request its own URL back if the file is missing.
    return (req, res, next) => {
      const url = req.url;
      req.url = `/${encodeURIComponent(mediaKey(req.originalUrl))}`;
      serve(req, res, (error?: unknown) => {
        req.url = url;
        next(error);
      });
    };
  }
}
