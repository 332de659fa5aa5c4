export { createListingsClient, type ListingsClient, type ListingsClientOptions } from './client';
export { importFeed, type FeedSource, type ImportFeedOptions } from './imports';
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
  type DataOf,
  type FeedEvent,
  type FieldError,
  type Import,
  type ImportResult,
  type ListItem,
  type Listing,
  type PageEnvelope,
  type ResponseData,
  type SuccessEnvelope,
  type WebhookPayload,
} from './wire';
export type { components, operations, paths } from './schema';
