import { Module } from '@nestjs/common';
import { GalleryStore } from './gallery.store';

/** The gallery table's store, for the listings (full replacement) and images (edits) modules alike. */
@Module({
  providers: [GalleryStore],
  exports: [GalleryStore],
})
export class GalleryModule {}
