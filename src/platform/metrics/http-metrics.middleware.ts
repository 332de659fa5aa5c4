import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { routeTemplate } from '../http/route-template';
import type { Metrics } from './metrics';

/** Requests no route answered (the 404 fallback, /media, the dashboard's own router). */
const NO_ROUTE = 'unmatched';

/** Every request timed by its route's template (routeTemplate). */
export function httpMetrics(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const stop = metrics.httpRequestDuration.startTimer();
    res.once('finish', () => {
      stop({
        method: req.method,
        route: routeTemplate(req) ?? NO_ROUTE,
        status: String(res.statusCode),
      });
      if (res.statusCode === 429) metrics.rateLimited.inc();
      else if (res.statusCode === 401) metrics.authFailures.inc();
    });
    next();
  };
}

/** GET /metrics in Prometheus text format, for the metrics listener and, if enabled, the API port. */
export function metricsHandler(metrics: Metrics) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    void (async () => {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD' }).end();
        return;
      }
      const body = await metrics.registry.metrics();
      res.writeHead(200, { 'Content-Type': metrics.registry.contentType });
      res.end(req.method === 'HEAD' ? undefined : body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };
}
