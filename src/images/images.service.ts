import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { OwnerScope } from '../auth/scope';
import { NotFoundError, ValidationError } from '../common/errors/domain-error';
import type { ImageResponse } from '../listings/dto/listing.response';
import { ListingsService } from '../listings/listings.service';
import type { GalleryResponse } from './dto/image.response';
import { MAX_IMAGES } from '../common/api-limits';
import { resolveInsertPosition } from '../listings/gallery/gallery-order';
import { GalleryStore } from '../listings/gallery/gallery.store';
import { IMAGE_PRIORITY } from '../listings/gallery/image-priority';
import { ImageProcessor } from './image-processor';
import { ImageJobsStore } from './pipeline/image-jobs.store';
import { ImageFileCleanup } from '../storage/image-file-cleanup';
import { STORAGE_DRIVER, StorageDriver } from '../storage/storage-driver';
import type { ImageSource } from './upload-source';

const EDIT_ACTION = 'change the images of';

/** Every change locks the listing row first, so one gallery's changes take turns. */
@Injectable()
export class ImagesService {
  private readonly logger = new Logger(ImagesService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly listings: ListingsService,
    private readonly gallery: GalleryStore,
    private readonly processor: ImageProcessor,
    @Inject(STORAGE_DRIVER) private readonly storage: StorageDriver,
    private readonly imageFiles: ImageFileCleanup,
    private readonly jobs: ImageJobsStore,
  ) {}

  async add(
    scope: OwnerScope,
    listingId: string,
    source: ImageSource,
    order?: number | null,
  ): Promise<ImageResponse> {
    let stored: { key: string; url: string } | undefined;
    if (source.kind === 'upload') {
      // Answer 404 before spending time on decoding an upload for a listing the caller cannot see.
      await this.listings.get(scope, listingId);
      stored = await this.store(source.data, source.field);
    }
    try {
      return await this.dataSource.transaction(async (em) => {
        const listing = await this.listings.lockEditable(em, scope, listingId, EDIT_ACTION);
        if (listing.images.length >= MAX_IMAGES) {
          throw ValidationError.field('images', `A listing has at most ${MAX_IMAGES} images.`);
        }
        const position = resolveInsertPosition(listing.images.length, order);
        const image = await this.gallery.insertAt(
          em,
          listingId,
          {
            url: stored?.url ?? (source as { url: string }).url,
            storageKey: stored?.key ?? null,
          },
          position,
          IMAGE_PRIORITY.request,
        );
        await this.listings.touch(em, listing, ['images']);
        return image;
      });
    } catch (error) {
      // The row never committed, so its file must not outlive it.
      if (stored) await this.discard(stored.key);
      throw error;
    }
  }

  async remove(scope: OwnerScope, listingId: string, imageId: string): Promise<GalleryResponse> {
    return this.dataSource.transaction(async (em) => {
      const listing = await this.listings.lockEditable(em, scope, listingId, EDIT_ACTION);
      const removed = listing.images.find((image) => image.id === imageId);
      if (!removed) throw new NotFoundError('Image');
      const droppedKeys = await this.gallery.delete(em, listingId, removed);
      await this.imageFiles.deleteAfterCommit(em, droppedKeys);
      await this.listings.touch(em, listing, ['images']);
      return { listingId, images: await this.gallery.list(em, listingId) };
    });
  }

  /** Queues a failed image again; any other status is refused on `status`. */
  async retry(scope: OwnerScope, listingId: string, imageId: string): Promise<ImageResponse> {
    return this.dataSource.transaction(async (em) => {
      const result = await this.jobs.requeue(em, scope, listingId, imageId);
      if (!result.listing) throw new NotFoundError('Listing');
      if (!result.image) throw new NotFoundError('Image');
      if (!result.requeued) {
        throw ValidationError.field(
          'status',
          `Only a failed image can be retried; this one is ${result.image.status}.`,
        );
      }
      return result.image;
    });
  }

  /** The list must name every image of the listing exactly once; it becomes the new order. */
  async reorder(
    scope: OwnerScope,
    listingId: string,
    imageIds: string[],
  ): Promise<GalleryResponse> {
    return this.dataSource.transaction(async (em) => {
      const listing = await this.listings.lockEditable(em, scope, listingId, EDIT_ACTION);
      const current = listing.images.map((image) => image.id);
      this.assertPermutation(current, imageIds);
      if (current.every((id, i) => id === imageIds[i]))
        return { listingId, images: listing.images };
      await this.gallery.reorder(em, listingId, imageIds);
      await this.listings.touch(em, listing, ['images']);
      return { listingId, images: await this.gallery.list(em, listingId) };
    });
  }

  private assertPermutation(current: string[], requested: string[]): void {
    const duplicates = requested.filter((id, i) => requested.indexOf(id) !== i);
    const foreign = requested.filter((id) => !current.includes(id));
    const missing = current.filter((id) => !requested.includes(id));
    const problems = [
      duplicates.length && `duplicated: ${[...new Set(duplicates)].join(', ')}`,
      foreign.length && `not images of this listing: ${foreign.join(', ')}`,
      missing.length && `missing: ${missing.join(', ')}`,
    ].filter(Boolean);
    if (problems.length > 0) {
      throw ValidationError.field(
        'imageIds',
        `imageIds must list every image of the listing exactly once (${problems.join('; ')}).`,
      );
    }
  }

  private async store(
    data: Buffer,
    field: 'file' | 'base64',
  ): Promise<{ key: string; url: string }> {
    const image = await this.processor.process(data, field);
    const key = `${randomUUID()}.${image.extension}`;
    await this.storage.put(key, image.data, image.contentType);
    return { key, url: this.storage.publicUrl(key) };
  }

  private async discard(key: string): Promise<void> {
    await this.storage
      .delete(key)
      .catch((error: unknown) =>
        this.logger.warn({ err: error, key }, 'Could not delete an image file'),
      );
  }
}
