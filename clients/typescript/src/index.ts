export { createListingsClient, type ListingsClient, type ListingsClientOptions } from './client';
export { type RetryOptions } from './retry';
export {
  importFeed,
  ImportStatusUnreadableError,
  type FeedSource,
  type ImportFeedOptions,
} from './imports';
export {
  cursorAll,
  followEvents,
  importResults,
  listAll,
  paginate,
  type FollowEventsOptions,
  type ImportResultsQuery,
  type ListAllQuery,
} from './paging';
export {
  verifyWebhook,
  WebhookVerificationError,
  type VerifyWebhookOptions,
  type WebhookHeaders,
  type WebhookVerificationReason,
} from './webhooks';
export {
  ListingsApiError,
  unwrap,
  type CursorEnvelope,
  type CursorPagination,
  type Delivery,
  type ErrorBody,
  type FeedEvent,
  type FeedLine,
  type FieldError,
  type Import,
  type ImportResult,
  type ListItem,
  type Listing,
  type ListingImage,
  type Meta,
  type PageEnvelope,
  type PagePagination,
  type ResponseData,
  type Success,
  type SuccessEnvelope,
  type WebhookPayload,
} from './wire';
export type { components, operations, paths } from './schema';
