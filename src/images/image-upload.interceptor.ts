import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Response } from 'express';
import { defer, finalize, type Observable, switchMap } from 'rxjs';
import type { AuthenticatedRequest } from '../auth/auth.decorators';
import { jsonBodyParser } from '../common/http/json-body.verify';
import type { AllConfig } from '../platform/config';
import { Metrics } from '../platform/metrics/metrics';
import { UploadGate } from './upload-gate';

/** An image sent as base64 is a third larger than its 10 MB. */
export const IMAGE_JSON_BODY_LIMIT = '15mb';
/** A body this small as sent and not compressed (an image by URL) is read without a slot. */
const UNGATED_BYTES = 64 * 1024;

/** What body-parser raises for a request that ended before its body: a 400, logged as one. */
const requestGone = () =>
  Object.assign(new Error('request aborted'), { type: 'request.aborted', status: 400 });

/**
 * Reads an image upload's body after the guards (an unauthorised, rate-limited or refused request
 * answers before 15 MB are read) and within a slot of the process's UploadGate, held until the
 * handler is done: a burst of uploads waits unread instead of holding every body in memory at once.
 * Listed before the multipart interceptor, which reads a multipart body within the same slot.
 */
@Injectable()
export class ImageUploadInterceptor implements NestInterceptor {
  private readonly gate: UploadGate;
  /** a body not received in full this long after its slot was granted loses its connection */
  private readonly bodyTimeoutMs: number;
  private readonly parseJson = jsonBodyParser(IMAGE_JSON_BODY_LIMIT);

  constructor(config: ConfigService<AllConfig, true>, metrics: Metrics) {
    const slots = config.get('storage.uploadsInFlight', { infer: true });
    this.bodyTimeoutMs = config.get('storage.uploadBodyTimeoutMs', { infer: true });
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
      if (needsSlot(req)) release = await this.slot(req, res);
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
   * Waits for a slot, shared per account (its keys together). A client that leaves while its
   * upload waits gives its place up, if Node notices (the socket is not being read): otherwise
   * the upload is read in its turn. The slot is released when the handler is done or the
   * connection closes, and a body still incomplete after IMAGE_UPLOAD_BODY_TIMEOUT loses its
   * connection: a stalled sender cannot hold a slot for long.
   */
  private async slot(req: AuthenticatedRequest, res: Response): Promise<() => void> {
    const gone = new AbortController();
    const leave = () => gone.abort(requestGone());
    res.once('close', leave);
    let granted: () => void;
    try {
      granted = await this.gate.enter(req.principal!.accountId, gone.signal);
    } finally {
      res.off('close', leave);
    }
    const deadline = setTimeout(() => req.complete || req.destroy(), this.bodyTimeoutMs);
    const release = () => {
      clearTimeout(deadline);
      granted();
    };
    res.once('close', release);
    return release;
  }
}

/** A body that is large, of unknown length or compressed (its inflated size unknown) waits. */
function needsSlot(req: AuthenticatedRequest): boolean {
  const { 'content-length': length, 'transfer-encoding': chunked } = req.headers;
  if (chunked === undefined && (length === undefined || length === '0')) return false;
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  return encoding !== 'identity' || !(Number(length) <= UNGATED_BYTES);
}
