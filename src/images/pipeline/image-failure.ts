import type { ImageFailureReason } from '../../listings/dto/listing.response';
import { FetchError } from '../../platform/outbound/guarded-fetch';
import { RenderError } from '../renditions/render-renditions';

/** Why an image could not be had, as the image record shows it, and whether to try again. */
export interface ImageFailure {
  reason: ImageFailureReason;
  message: string;
  /** network errors, timeouts, 429 and 5xx: the next try may succeed */
  transient: boolean;
}

/** The source is not there (an upload's file, or a media URL's): nothing will bring it back. */
export class MissingSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MissingSourceError';
  }
}

/**
 * The image's failure in `error`, or undefined when the error is not the image's (the database,
 * storage or Redis failed): that one is thrown on, and the image is handed over again later.
 */
export function imageFailureOf(error: unknown): ImageFailure | undefined {
  if (error instanceof RenderError)
    return { reason: error.reason, message: error.message, transient: false };
  if (error instanceof MissingSourceError)
    return { reason: 'unreachable', message: error.message, transient: false };
  if (!(error instanceof FetchError)) return undefined;
  switch (error.reason) {
    case 'unreachable':
    case 'timeout':
      return { reason: error.reason, message: error.message, transient: true };
    case 'http_error': {
      const status = error.status ?? 0;
      return {
        reason: 'http_error',
        message: error.message,
        transient: status === 429 || status >= 500,
      };
    }
    // A redirect loop or a redirect to file: is an answer of the server (not a network error):
    // it is not retried.
    case 'too_many_redirects':
    case 'unsupported_scheme':
    case 'too_large':
    case 'blocked_address':
      return { reason: error.reason, message: error.message, transient: false };
  }
}

/**
 * When to try again after a failure, given how many tries failed before this one; null: the
 * image fails now. `delaysMs[n]` is the wait after the (n+1)-th failed try.
 */
export function retryAt(
  failure: ImageFailure,
  failedBefore: number,
  delaysMs: readonly number[],
  now: Date,
): Date | null {
  if (!failure.transient || failedBefore >= delaysMs.length) return null;
  return new Date(now.getTime() + delaysMs[failedBefore]);
}
