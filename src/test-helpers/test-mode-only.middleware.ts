import { Injectable, NestMiddleware, NotFoundException } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import type { AuthenticatedRequest } from '../auth/auth.decorators';

/**
 * The sandbox exists for test keys only: to a live key its routes answer as an unknown route
 * does (404), before scopes, rate limits or the body's validation are looked at.
 */
@Injectable()
export class TestModeOnlyMiddleware implements NestMiddleware {
  use(req: AuthenticatedRequest, _res: Response, next: NextFunction): void {
    if (req.principal?.livemode !== false) {
      next(new NotFoundException(`Cannot ${req.method} ${req.originalUrl}`));
      return;
    }
    next();
  }
}
