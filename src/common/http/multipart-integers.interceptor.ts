import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { toDecimalInteger } from './integer-query.decorator';

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
        for (const field of fields)
          if (field in req.body) req.body[field] = toDecimalInteger({ value: req.body[field] });
      return next.handle();
    }
  }
  return MultipartIntegersInterceptor;
}
