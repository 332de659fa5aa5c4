import type { ArgumentsHost } from '@nestjs/common';

/**
 * A part of the site that answers its own errors (the dashboard's HTML pages) rather than the
 * API's envelope. The exception filter asks it first, for every error, so the answers Nest makes
 * outside any controller (an unknown path under an excluded prefix) are covered too. A feature
 * provides it; the filter only declares the port.
 */
export abstract class PathErrorPages {
  /** Whether the request's path is answered by these pages. */
  abstract owns(path: string): boolean;
  abstract catch(exception: unknown, host: ArgumentsHost): void;
}
