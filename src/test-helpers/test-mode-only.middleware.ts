import { NotFoundException } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import type { AuthenticatedRequest } from '../auth/auth.decorators';

/** Where the sandbox's routes live, under the API prefix. */
export const TEST_HELPERS_PATH = 'test-helpers';

/**
 * The sandbox exists for test keys only: to a live key its routes answer as an unknown route
 * does (404), before scopes, rate limits or the body are looked at. Mounted by configureApp
 * after authentication and before the body parsers, so a malformed body cannot answer first.
 */
export function testModeOnly(req: AuthenticatedRequest, _res: Response, next: NextFunction): void {
  if (req.principal?.livemode !== false) {
    next(new NotFoundException(`Cannot ${req.method} ${req.originalUrl}`));
    return;
  }
  next();
}
