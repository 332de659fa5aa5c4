/** Every limit counts requests in a sliding window of one minute. */
export const RATE_LIMIT_WINDOW_MS = 60_000;
