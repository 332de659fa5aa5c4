import type { ServerResponse } from 'node:http';

/**
 * `X-Content-Type-Options: nosniff` on every answer: a browser then takes a body for what its
 * Content-Type says, never a JSON error echoing input for HTML or script.
 */
export const NO_SNIFF = { name: 'X-Content-Type-Options', value: 'nosniff' } as const;

/** The header, set before anything answers (Express middleware, or a plain handler's first line). */
export function noSniff(_req: unknown, res: ServerResponse, next?: () => void): void {
  res.setHeader(NO_SNIFF.name, NO_SNIFF.value);
  next?.();
}
