/** The spec's limits for webhooks, and the service's own bounds on a delivery. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 5;
/** At most this much of a receiver's answer is read, and kept on the delivery record. */
export const RESPONSE_BODY_LIMIT_BYTES = 64 * 1024;
