export const RATE_LIMIT_WINDOW_MS = 60_000;
