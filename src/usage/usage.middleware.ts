import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import type { AuthenticatedRequest } from '../auth/auth.decorators';
import { routeTemplate } from '../platform/http/route-template';
import { UsageRecorder } from './usage.recorder';

/**
 * Counts on response, whoever answered (a guard's 403 or 429 too, which an interceptor never
 * sees); only requests with a recognised key count, so not a 401.
 */
@Injectable()
export class UsageMiddleware implements NestMiddleware {
  constructor(private readonly recorder: UsageRecorder) {}

  use(req: AuthenticatedRequest, res: Response, next: NextFunction): void {
    res.on('finish', () => {
      const route = routeTemplate(req);
      // A path no route answered is no endpoint of the API: its 404 is not usage of one.
      if (!req.principal || route === undefined) return;
      this.recorder.record(req.principal.keyId, req.method, route, res.statusCode);
    });
    next();
  }
}
