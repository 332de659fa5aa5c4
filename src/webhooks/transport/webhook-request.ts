import { signatureHeaders } from './webhook-signer';

/** At most this much of a receiver's answer is read, and kept on the delivery record. */
export const RESPONSE_BODY_LIMIT_BYTES = 64 * 1024;

export interface OutgoingDelivery {
  url: string;
  /** the endpoint's live secrets, newest first: each signs, in both header kinds */
  secrets: string[];
  event: string;
  deliveryId: string;
  /** the stored body, sent and signed byte for byte */
  payload: string;
}

const USER_AGENT = 'ListingsService-Webhooks/1';

/**
 * The headers of one attempt: the service's own and the Standard Webhooks ones (the same delivery
 * id and timestamp under the standard names), with a signature per live secret in both kinds.
 * `contentLength` is the payload's length in bytes, not in characters.
 */
export function deliveryHeaders(
  delivery: OutgoingDelivery,
  timestamp: string,
  contentLength: number,
): Record<string, string | number> {
  return {
    'Content-Type': 'application/json',
    'Content-Length': contentLength,
    'User-Agent': USER_AGENT,
    'X-Service-Event': delivery.event,
    'X-Service-Delivery': delivery.deliveryId,
    'X-Service-Timestamp': timestamp,
    'webhook-id': delivery.deliveryId,
    'webhook-timestamp': timestamp,
    ...signatureHeaders(delivery.secrets, delivery.deliveryId, timestamp, delivery.payload),
  };
}

/** Where a request stood when its error came. */
export interface RequestState {
  /** the request went out on a pooled connection used before */
  reusedSocket: boolean;
  /** the receiver's answer had begun */
  answered: boolean;
  /** the attempt's time-out had fired */
  aborted: boolean;
}

/**
 * Whether a request's error means the receiver had closed the pooled socket just as it was
 * reused: a reset or broken pipe on a reused socket, before any answer and within the time-out.
 * Such a request never reached the receiver, so it is sent once more on a new connection; any
 * other error is the attempt's outcome.
 */
export function isStalePooledSocket(error: { code?: string }, state: RequestState): boolean {
  return (
    state.reusedSocket &&
    !state.answered &&
    !state.aborted &&
    (error.code === 'ECONNRESET' || error.code === 'EPIPE')
  );
}

/** What is kept of an answer's body: its first RESPONSE_BODY_LIMIT_BYTES bytes, as UTF-8. */
export function bodyExcerpt(chunks: Buffer[]): string {
  return Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT_BYTES).toString('utf8');
}
