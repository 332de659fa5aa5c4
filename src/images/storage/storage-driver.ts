/**
 * Where uploaded images live. The images service sees only this interface, so the local-disk
 * driver can be replaced by object storage without touching it.
 */
export interface StorageDriver {
  /** Stores `data` under `key` (immutable: a key is never rewritten). */
  put(key: string, data: Buffer, contentType: string): Promise<void>;
  /** Removes `key`; a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** The public URL of `key`. */
  publicUrl(key: string): string;
}

export const STORAGE_DRIVER = Symbol('STORAGE_DRIVER');
