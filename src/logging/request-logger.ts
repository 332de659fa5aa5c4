import type { RequestHandler } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PinoLogger } from 'nestjs-pino';
import { pinoHttp } from 'pino-http';

type RequestWithId = IncomingMessage & { id?: string; originalUrl?: string };

/**
 * One log line per answered request, with its request id, method, path and status, written
 * through the application's root logger (so level and redaction are shared). Mount it after
 * the request-id middleware and after `app.get(Logger)`, which creates that root logger.
 */
export function requestLogger(): RequestHandler {
  return pinoHttp({
    logger: PinoLogger.root,
    genReqId: (req: RequestWithId) => req.id ?? 'unknown',
    customProps: (req: RequestWithId) => ({ requestId: req.id }),
    serializers: {
      req: (req: { method?: string; url?: string }) => ({ method: req.method, url: req.url }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
    },
    autoLogging: {
      ignore: (req: RequestWithId) => (req.originalUrl ?? req.url ?? '').startsWith('/health'),
    },
    customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) =>
      error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
  }) as unknown as RequestHandler;
}
