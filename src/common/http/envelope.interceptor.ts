import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  StreamableFile,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { map, Observable } from 'rxjs';
import { CursorPage } from '../pagination/cursor-page';
import { Paginated } from '../pagination/paginated';
import { metaFor, SuccessEnvelope } from './envelope';
import { RawJson } from './raw-json';

/** Metadata of a controller that answers other than JSON in the envelope (the dashboard's HTML). */
export const WITHOUT_ENVELOPE = 'http:without-envelope';

@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(
    context: ExecutionContext,
    next: CallHandler,
  ): Observable<SuccessEnvelope<unknown> | string | StreamableFile> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(WITHOUT_ENVELOPE, targets)) return next.handle();
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    return next.handle().pipe(
      map((result: unknown) => {
        // A download (NDJSON results) is sent as it is, without the envelope.
        if (result instanceof StreamableFile) return result;
        if (!(result instanceof Paginated || result instanceof CursorPage))
          return { success: true, data: result ?? null, meta: metaFor(req) };
        if (!(result.items instanceof RawJson))
          return {
            success: true,
            data: result.items,
            pagination: result.pagination,
            meta: metaFor(req),
          };
        // The same envelope, in the same key order, around JSON text the database rendered.
        http.getResponse<Response>().type('application/json');
        return `{"success":true,"data":${result.items.text},"pagination":${JSON.stringify(
          result.pagination,
        )},"meta":${JSON.stringify(metaFor(req))}}`;
      }),
    );
  }
}
