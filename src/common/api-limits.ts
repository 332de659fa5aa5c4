/** The API's published limits, shown by GET /me; each is enforced where its feature lives. */
export const RATE_LIMIT_WINDOW_MS = 60_000;
export const BULK_MAX_ITEMS = 50;
export const MAX_IMAGES = 30;
export const MAX_WEBHOOK_ENDPOINTS = 5;
export const PAGE_SIZE_MAX = 100;
