/**
 * What the OpenAPI document says of each operation that decorators cannot: a stable, readable
 * operationId (the typed client is generated from it: renaming one breaks integrators' code), a
 * summary, and the shape of each success answer inside its envelope. Keys are `method path` as
 * served. document.ts refuses to build a document with a route missing here, or an entry here
 * that names no route, so a new route cannot ship undocumented.
 */

/** A success answer's body; document.ts wraps it in the matching envelope component. */
export type Answer =
  /** `{success, data: <schema>, meta}` */
  | { data: string }
  /** `{success, data: <schema>[], pagination: Pagination, meta}` */
  | { page: string }
  /** `{success, data: <schema>[], pagination: CursorPagination, meta}` */
  | { cursor: string };

export interface OperationSpec {
  operationId: string;
  summary: string;
  /** success statuses and their bodies, schema names as in components.schemas */
  success: Partial<Record<200 | 201 | 202, Answer>>;
  /** error statuses beyond those derived from the route (see document.ts) */
  extraErrors?: number[];
}

export const OPERATIONS: Record<string, OperationSpec> = {
  'get /v1/me': {
    operationId: 'getMe',
    summary: 'Describe the account and API key',
    success: { 200: { data: 'Me' } },
  },
  'get /v1/me/usage': {
    operationId: 'getUsage',
    summary: 'Daily API usage of the account',
    success: { 200: { data: 'Usage' } },
  },
  'get /v1/categories': {
    operationId: 'listCategories',
    summary: "Category tree with each leaf's attributes",
    success: { 200: { page: 'Category' } },
  },
  'get /v1/locations': {
    operationId: 'listLocations',
    summary: 'Counties (län) and their municipalities (kommuner)',
    success: { 200: { page: 'Location' } },
  },

  'post /v1/listings/bulk': {
    operationId: 'bulkCreateListings',
    summary: 'Create up to 100 listings, each item on its own',
    success: { 200: { data: 'BulkCreateResult' } },
  },
  'patch /v1/listings/bulk': {
    operationId: 'bulkUpdateListings',
    summary: 'Update up to 100 listings, each item on its own',
    success: { 200: { data: 'BulkUpdateResult' } },
  },
  'delete /v1/listings/bulk': {
    operationId: 'bulkRemoveListings',
    summary: 'Remove up to 100 listings',
    success: { 200: { data: 'BulkRemoveResult' } },
  },
  'post /v1/listings/bulk/sold': {
    operationId: 'bulkMarkListingsSold',
    summary: 'Mark up to 100 listings sold',
    success: { 200: { data: 'BulkSoldResult' } },
  },

  'get /v1/listings': {
    operationId: 'listListings',
    summary: 'List listings, a page at a time',
    success: { 200: { page: 'Listing' } },
  },
  'post /v1/listings': {
    operationId: 'createListing',
    summary: 'Create a listing',
    success: { 201: { data: 'Listing' } },
  },
  'put /v1/listings/by-external-id/{externalId}': {
    operationId: 'upsertListingByExternalId',
    summary: 'Create or replace the listing with this externalId',
    success: { 200: { data: 'Listing' }, 201: { data: 'Listing' } },
  },
  'get /v1/listings/{id}': {
    operationId: 'getListing',
    summary: 'Get a listing',
    success: { 200: { data: 'Listing' } },
  },
  'patch /v1/listings/{id}': {
    operationId: 'updateListing',
    summary: 'Update some fields of a listing',
    success: { 200: { data: 'Listing' } },
  },
  'delete /v1/listings/{id}': {
    operationId: 'removeListing',
    summary: 'Remove a listing (soft delete)',
    success: { 200: { data: 'Listing' } },
  },
  'post /v1/listings/{id}/sold': {
    operationId: 'markListingSold',
    summary: 'Mark a listing sold',
    success: { 200: { data: 'Listing' } },
  },
  'post /v1/listings/{id}/renew': {
    operationId: 'renewListing',
    summary: 'Renew an active or expired listing',
    success: { 200: { data: 'Listing' } },
  },

  'post /v1/listings/{id}/images': {
    operationId: 'addListingImage',
    summary: 'Add an image by URL, base64 or file upload',
    success: { 201: { data: 'ListingImage' } },
  },
  'patch /v1/listings/{id}/images/reorder': {
    operationId: 'reorderListingImages',
    summary: "Put a listing's images in a new order",
    success: { 200: { data: 'Gallery' } },
  },
  'post /v1/listings/{id}/images/{imageId}/retry': {
    operationId: 'retryListingImage',
    summary: 'Queue a failed image to be fetched and rendered again',
    success: { 202: { data: 'ListingImage' } },
  },
  'delete /v1/listings/{id}/images/{imageId}': {
    operationId: 'removeListingImage',
    summary: 'Remove an image from a listing',
    success: { 200: { data: 'Gallery' } },
  },

  'get /health/live': {
    operationId: 'getLiveness',
    summary: 'Liveness: the process answers',
    success: { 200: { data: 'Liveness' } },
  },
  'get /health/ready': {
    operationId: 'getReadiness',
    summary: 'Readiness: database and Redis reachable',
    success: { 200: { data: 'Readiness' } },
    extraErrors: [503],
  },

  'post /v1/webhooks': {
    operationId: 'createWebhookEndpoint',
    summary: 'Register a webhook endpoint (shows its secret once)',
    success: { 201: { data: 'WebhookEndpointWithSecret' } },
  },
  'get /v1/webhooks': {
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints',
    success: { 200: { page: 'WebhookEndpoint' } },
  },
  'patch /v1/webhooks/{id}': {
    operationId: 'updateWebhookEndpoint',
    summary: 'Update or re-enable a webhook endpoint',
    success: { 200: { data: 'WebhookEndpoint' } },
  },
  'delete /v1/webhooks/{id}': {
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint and its deliveries',
    success: { 200: { data: 'WebhookEndpoint' } },
  },
  'post /v1/webhooks/{id}/rotate-secret': {
    operationId: 'rotateWebhookSecret',
    summary: "Rotate a webhook endpoint's signing secret",
    success: { 200: { data: 'WebhookEndpointWithSecret' } },
  },
  'post /v1/webhooks/{id}/test': {
    operationId: 'sendTestWebhook',
    summary: 'Send a signed webhook.test delivery now',
    success: { 200: { data: 'Delivery' } },
  },
  'get /v1/webhooks/{id}/deliveries': {
    operationId: 'listWebhookDeliveries',
    summary: "List an endpoint's deliveries, newest first",
    success: { 200: { page: 'Delivery' } },
  },
  'get /v1/webhooks/{id}/deliveries/{deliveryId}': {
    operationId: 'getWebhookDelivery',
    summary: 'Get a delivery with its attempt log',
    success: { 200: { data: 'DeliveryDetail' } },
  },
  'post /v1/webhooks/{id}/deliveries/{deliveryId}/retry': {
    operationId: 'retryWebhookDelivery',
    summary: 'Attempt a delivery once more now',
    success: { 202: { data: 'Delivery' } },
  },
  'post /v1/webhooks/{id}/recover': {
    operationId: 'recoverWebhookDeliveries',
    summary: 'Deliver again every event missed since a time',
    success: { 202: { data: 'RecoverResult' } },
  },

  'post /v1/imports': {
    operationId: 'createImport',
    summary: 'Start an import from a feed file or URL',
    success: { 202: { data: 'Import' } },
  },
  'get /v1/imports': {
    operationId: 'listImports',
    summary: 'List imports, newest first',
    success: { 200: { page: 'Import' } },
  },
  'get /v1/imports/{id}': {
    operationId: 'getImport',
    summary: 'Get an import and its counts',
    success: { 200: { data: 'Import' } },
  },
  'get /v1/imports/{id}/results': {
    operationId: 'listImportResults',
    summary: "Each line's outcome (JSON pages or one NDJSON download)",
    success: { 200: { cursor: 'ImportResult' } },
  },
  'post /v1/imports/{id}/cancel': {
    operationId: 'cancelImport',
    summary: 'Cancel a queued, held or running import',
    success: { 200: { data: 'Import' } },
  },
  'post /v1/imports/{id}/confirm': {
    operationId: 'confirmImport',
    summary: 'Run a held mirror import in full',
    success: { 200: { data: 'Import' } },
  },

  'post /v1/test-helpers/listings/{id}/publish': {
    operationId: 'testPublishListing',
    summary: 'Test mode: publish a draft listing',
    success: { 200: { data: 'Listing' } },
  },
  'post /v1/test-helpers/listings/{id}/expire': {
    operationId: 'testExpireListing',
    summary: 'Test mode: expire an active listing now',
    success: { 200: { data: 'Listing' } },
  },
  'post /v1/test-helpers/listings/{id}/messages': {
    operationId: 'testReceiveMessage',
    summary: 'Test mode: emit message.received for a listing',
    success: { 200: { data: 'Listing' } },
  },
  'post /v1/test-helpers/listings/{id}/favorites': {
    operationId: 'testFavoriteListing',
    summary: 'Test mode: emit listing.favorited for a listing',
    success: { 200: { data: 'Listing' } },
  },

  'get /v1/events': {
    operationId: 'listEvents',
    summary: 'The event feed, oldest first, by cursor',
    success: { 200: { cursor: 'Event' } },
  },
};
