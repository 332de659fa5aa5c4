import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { map, Observable } from 'rxjs';
import { CursorPage } from '../pagination/cursor-page';
import { Paginated } from '../pagination/paginated';
import { metaFor, SuccessEnvelope } from './envelope';

/** Wraps every controller result in the spec's success envelope. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<SuccessEnvelope<unknown>> {
    const req = context.switchToHttp().getRequest<Request>();
    return next.handle().pipe(
      map((result: unknown) =>
        result instanceof Paginated || result instanceof CursorPage
          ? {
              success: true,
              data: result.items,
              pagination: result.pagination,
              meta: metaFor(req),
            }
          : { success: true, data: result ?? null, meta: metaFor(req) },
      ),
    );
  }
}
