import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import type { AuthenticatedRequest } from '../auth/auth.decorators';
import { UsageRecorder } from './usage.recorder';

/**
 * Counts a request once its response is sent, whatever answered it: the handler, a pipe, or a
 * guard refusing it (403, 429), which an interceptor would never see. Only requests whose key was
 * recognised count; a 401 has no key to charge it to.
 */
@Injectable()
export class UsageMiddleware implements NestMiddleware {
  constructor(private readonly recorder: UsageRecorder) {}

  use(req: AuthenticatedRequest, res: Response, next: NextFunction): void {
    res.on('finish', () => {
      if (!req.principal) return;
      // The template, not the path: /v1/listings/:id, whatever the id.
      const route = typeof req.route?.path === 'string' ? req.route.path : '*';
      this.recorder.record(req.principal.keyId, req.method, route, res.statusCode);
    });
    next();
  }
}
