import type { Request, RequestHandler, Response } from 'express';
import type { Logger as Pino } from 'pino';
import { requestIdOf } from './request-id';

/**
 * A URL as logged: the value of a `token` query parameter (the dashboard's mailed links: email
 * verification, password reset) is replaced, so the log never holds a usable link.
 */
export function withoutSecrets(url: string): string {
  return url.replace(/([?&]token=)[^&#]*/gi, '$1[redacted]');
}

/**
 * Not pino-http, which builds child loggers per request; the line is built only if its level is
 * on. Mount after the request-id middleware; `root` is the logging module's ROOT_LOGGER.
 */
export function requestLogger(root: Pino): RequestHandler {
  // Only these fields: the whole request and response would carry the headers (and the key).
  const logger = root.child(
    {},
    {
      serializers: {
        req: (req: Request) => ({ method: req.method, url: withoutSecrets(req.originalUrl) }),
        res: (res: Response) => ({ statusCode: res.statusCode }),
      },
    },
  );
  return (req, res, next) => {
    if (req.originalUrl.startsWith('/health')) return next();
    const startedAt = Date.now();
    const onEnd = () => {
      res.off('finish', onEnd);
      res.off('close', onEnd);
      const level = res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          requestId: requestIdOf(req),
          req,
          res,
          responseTime: Date.now() - startedAt,
        },
        outcome(req, res),
      );
    };
    res.on('finish', onEnd);
    res.on('close', onEnd);
    next();
  };
}

/** pino-http's messages, which log queries may already look for. */
function outcome(req: Request, res: Response): string {
  if (res.statusCode >= 500) return 'request errored';
  return !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted';
}
