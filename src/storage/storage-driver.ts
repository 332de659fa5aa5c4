import type { RequestHandler } from 'express';
import type { Readable } from 'node:stream';

/** Where uploaded images and renditions live; the images feature sees only this interface. */
export interface StorageDriver {
  /** Stores `data` under `key` (immutable: a key is never rewritten). */
  put(key: string, data: Buffer, contentType: string): Promise<void>;
  /** The bytes under `key`, or undefined when there is no such file. */
  get(key: string): Promise<Buffer | undefined>;
  /** Removes `key`; a missing key is not an error. */
  delete(key: string): Promise<void>;
  publicUrl(key: string): string;
  /** Streams `data` to a file only the service reads (import feeds), never served under /media. */
  putPrivate(key: string, data: Readable): Promise<void>;
  readPrivate(key: string): Promise<Readable>;
  /** A missing key is not an error. */
  deletePrivate(key: string): Promise<void>;
  /** Answers GET /media/<key>; registered by ImagesModule on MEDIA_ROUTE. */
  mediaHandler(): RequestHandler;
}

export const STORAGE_DRIVER = Symbol('STORAGE_DRIVER');

export const MEDIA_PATH = '/media';
export const MEDIA_ROUTE = 'media/*key';

/** The key of a /media request, wherever the handler is mounted. */
export function mediaKey(originalUrl: string): string {
  try {
    return decodeURIComponent(originalUrl.split('?')[0].slice(MEDIA_PATH.length + 1));
  } catch {
    return ''; // malformed escapes name no file: the handlers answer 404 for it
  }
}

/** Keys are immutable, so caches may keep a file for good. */
export const MEDIA_CACHE_MAX_AGE_S = 365 * 24 * 3600;
