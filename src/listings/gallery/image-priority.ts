/**
 * Who added an image, kept in `listing_images.priority` (lower first): the image pipeline
 * processes the images of a single request before those of bulk requests and imports, since a
 * person may be waiting on the one.
 */
export const IMAGE_PRIORITY = { request: 0, bulk: 1 } as const;

export type ImagePriority = (typeof IMAGE_PRIORITY)[keyof typeof IMAGE_PRIORITY];
