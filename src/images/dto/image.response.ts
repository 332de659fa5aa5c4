import { ImageResponse } from '../../listings/dto/listing.response';

export class GalleryResponse {
  listingId: string;
  /** the whole gallery after the change, positions 0..n-1 */
  images: ImageResponse[];
}
