import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Readable } from 'node:stream';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { AllConfig } from '../../platform/config';
import { FetchError, GuardedFetch } from '../../platform/outbound/guarded-fetch';
import { OutboundDns } from '../../platform/outbound/outbound-dns';
import { STORAGE_DRIVER, StorageDriver } from '../../storage/storage-driver';
import { MAX_UPLOAD_BYTES } from '../image-processor';
import { RenderError } from '../renditions/render-renditions';
import { MissingSourceError } from './image-failure';
import type { ImageToProcess } from './image-jobs.store';

const MAX_REDIRECTS = 3;
const DNS_TIMEOUT_MS = 5_000;
const gunzipAsync = promisify(gunzip);
/** The keys the service writes (uploads, renditions): one path segment, no `..`. */
const MEDIA_KEY = /^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

/**
 * An image's source bytes: an upload's file from storage; a URL through the outbound guard (at
 * most 10 MB, cut off while streaming, redirects at most 3, one deadline); a URL of this service's
 * own /media from storage too (a listing showing another one's upload), never over the network.
 */
@Injectable()
export class ImageSource {
  private readonly fetcher: GuardedFetch;
  private readonly timeoutMs: number;
  private readonly mediaBase: string;

  constructor(
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    config: ConfigService<AllConfig, true>,
  ) {
    this.fetcher = new GuardedFetch(
      new OutboundDns(DNS_TIMEOUT_MS).lookup,
      config.get('outbound.allowPrivateTargets', { infer: true }),
    );
    this.timeoutMs = config.get('images.fetchTimeoutMs', { infer: true });
    this.mediaBase = storage.publicUrl('');
  }

  async read(image: ImageToProcess): Promise<Buffer> {
    const key = image.storage_key ?? this.mediaKeyOf(image.url);
    if (key !== undefined) {
      const data = await this.storage.get(key);
      if (!data) throw new MissingSourceError('The stored file of this image is missing.');
      return data;
    }
    const fetched = await this.fetcher.get(image.url, {
      timeoutMs: this.timeoutMs,
      maxBytes: MAX_UPLOAD_BYTES,
      maxRedirects: MAX_REDIRECTS,
    });
    const body = await collect(fetched.body);
    return fetched.contentEncoding?.trim().toLowerCase() === 'gzip' ? inflate(body) : body;
  }

  private mediaKeyOf(url: string): string | undefined {
    if (!url.startsWith(this.mediaBase)) return undefined;
    const key = url.slice(this.mediaBase.length);
    // Only what the service writes; anything else is fetched (and refused) as any other URL.
    return MEDIA_KEY.test(key) ? key : undefined;
  }
}

async function collect(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A gzip-encoded body, held to the same 10 MB once inflated. */
async function inflate(body: Buffer): Promise<Buffer> {
  try {
    return await gunzipAsync(body, { maxOutputLength: MAX_UPLOAD_BYTES });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new FetchError('too_large', `The body is larger than ${MAX_UPLOAD_BYTES} bytes.`);
    throw new RenderError(
      'not_an_image',
      'The body is not valid gzip, as its Content-Encoding says.',
    );
  }
}
