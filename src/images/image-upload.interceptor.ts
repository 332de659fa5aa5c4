import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { json, type Response } from 'express';
import { defer, finalize, type Observable, switchMap } from 'rxjs';
import type { AuthenticatedRequest } from '../auth/auth.decorators';
import { verifyJsonBody } from '../common/http/json-body.verify';
import type { AllConfig } from '../platform/config';
import { Metrics } from '../platform/metrics/metrics';
import { UploadGate } from './upload-gate';

/** An image sent as base64 is a third larger than its 10 MB. */
export const IMAGE_JSON_BODY_LIMIT = '15mb';
/** A body this small (an image by URL) is read without a slot: it costs next to nothing. */
const UNGATED_BYTES = 64 * 1024;

/**
 * Reads an image upload's body after the guards (an unauthorised, rate-limited or refused request
 * answers before 15 MB are read) and within a slot of the process's UploadGate, held until the
 * handler is done: a burst of uploads waits unread instead of holding every body in memory at once.
 * Listed before the multipart interceptor, which reads a multipart body within the same slot.
 */
@Injectable()
export class ImageUploadInterceptor implements NestInterceptor {
  private readonly gate: UploadGate;
  private readonly parseJson = json({ limit: IMAGE_JSON_BODY_LIMIT, verify: verifyJsonBody });

  constructor(config: ConfigService<AllConfig, true>, metrics: Metrics) {
    const slots = config.get('storage.uploadsInFlight', { infer: true });
    const gate = (this.gate = new UploadGate(slots, Math.max(1, Math.floor(slots / 2))));
    metrics.scrapedGauge(
      'image_uploads',
      'Image uploads being read and decoded (reading) and waiting unread for a slot (waiting)',
      ['state'],
      async function () {
        for (const [state, count] of Object.entries(gate.counts)) this.set({ state }, count);
      },
    );
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    let release = () => {};
    return defer(async () => {
      const length = Number(req.headers['content-length'] ?? NaN);
      if (!(length <= UNGATED_BYTES)) release = await this.slot(req.principal!.keyId, res);
      await new Promise<void>((resolve, reject) =>
        this.parseJson(req, res, (error?: unknown) => (error ? reject(error) : resolve())),
      );
    }).pipe(
      switchMap(() => next.handle()),
      // Held until the handler is done with the image, whatever the outcome.
      finalize(() => release()),
    );
  }

  /**
   * Waits for a slot. A client that leaves while its upload waits gives its place up, if Node
   * notices (the socket is not being read): otherwise the upload is read and applied in its turn,
   * as any request whose client stopped waiting.
   */
  private async slot(key: string, res: Response): Promise<() => void> {
    const gone = new AbortController();
    const leave = () => gone.abort();
    res.once('close', leave);
    try {
      return await this.gate.enter(key, gone.signal);
    } finally {
      res.off('close', leave);
    }
  }
}
