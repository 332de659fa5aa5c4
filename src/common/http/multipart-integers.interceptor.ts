import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';

const PLAIN_INTEGER = /^-?\d+$/;

/**
 * Multipart text fields arrive as strings: a whole number in one of `fields` is read as that
 * number before validation. JSON bodies are left as sent, so `"order": "1"` there stays a string
 * and is refused like any other mistyped field. Listed after the multipart interceptor, which
 * fills the body.
 */
export function MultipartIntegers(...fields: string[]): new () => NestInterceptor {
  @Injectable()
  class MultipartIntegersInterceptor implements NestInterceptor {
    intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
      const req = context.switchToHttp().getRequest<Request>();
      if (req.is('multipart/form-data') && req.body)
        for (const field of fields) {
          const value: unknown = req.body[field];
          if (typeof value === 'string' && PLAIN_INTEGER.test(value))
            req.body[field] = Number(value);
        }
      return next.handle();
    }
  }
  return MultipartIntegersInterceptor;
}
