import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import { ConfigService } from '@nestjs/config';
import { Request, Response } from 'express';
import type { AllConfig } from './platform/config';
import { httpMetrics, metricsHandler } from './platform/metrics/http-metrics.middleware';
import { ApiLoad } from './platform/api-load/api-load';
import { Metrics } from './platform/metrics/metrics';
import { ErrorCode } from './common/errors/error-code';
import { errorEnvelope } from './common/http/envelope';
import { Logger } from 'nestjs-pino';
import { AuthenticateMiddleware } from './auth/authenticate.middleware';
import { contentTypeMiddleware, isImageUpload } from './common/http/content-type.middleware';
import { jsonBodyParser } from './common/http/json-body.verify';
import { answerClientErrorsInEnvelope } from './common/http/client-errors';
import { noSniff } from './platform/http/no-sniff';
import { requestIdMiddleware } from './platform/logging/request-id';
import { ROOT_LOGGER } from './platform/logging/logging.module';
import { requestLogger } from './platform/logging/request-logger';
import { buildOpenApiDocument } from './openapi/document';
import { API_PREFIX, setGlobalPrefix } from './global-prefix';
import { configureDashboard } from './dashboard/dashboard-http';
import { TEST_HELPERS_PATH, testModeOnly } from './test-helpers/test-mode-only.middleware';

export const JSON_BODY_LIMIT = '2mb';

/** Shared with the tests. Order matters: nosniff and request id first, auth before any body is read. */
export async function configureApp(app: NestExpressApplication): Promise<NestExpressApplication> {
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  // Hashing every JSON answer for an ETag costs CPU on every request; API answers are not cached.
  app.set('etag', false);
  const config = app.get(ConfigService<AllConfig, true>);
  // Behind a proxy, req.ip must be the client's, not the proxy's (the 401 guard counts per client).
  app.set('trust proxy', config.get('app.trustProxy', { infer: true }));
  // First, so that every answer has it, whichever middleware or route gives it.
  app.use(noSniff);
  app.use(requestIdMiddleware);
  const metrics = app.get(Metrics);
  app.use(httpMetrics(metrics));
  // Scrapes normally go to METRICS_PORT; the public port answers them only when asked to.
  if (config.get('metrics.onApiPort', { infer: true }))
    app.use('/metrics', metricsHandler(metrics));
  app.use(requestLogger(app.get(ROOT_LOGGER)));
  // The API's request rate, which imports give way to (health, metrics and media not counted).
  const apiLoad = app.get(ApiLoad);
  app.use(`/${API_PREFIX}`, (_req: Request, _res: Response, next: () => void) => {
    apiLoad.count();
    next();
  });
  app.use(`/${API_PREFIX}`, app.get(AuthenticateMiddleware).handle);
  app.use(`/${API_PREFIX}/${TEST_HELPERS_PATH}`, testModeOnly);
  // Bodies are read only under the API prefix, after authentication. Nothing outside it takes a
  // body but the queue dashboard, whose router parses its own behind the admin-token check, and
  // the account dashboard's small urlencoded forms (configureDashboard, above the routes).
  app.use(`/${API_PREFIX}`, contentTypeMiddleware);
  // An image upload's body is read by its route, after the guards and within an upload slot.
  const parseJson = jsonBodyParser(JSON_BODY_LIMIT);
  app.use(`/${API_PREFIX}`, (req: Request, res: Response, next: () => void) =>
    isImageUpload(req) ? next() : parseJson(req, res, next),
  );
  // The account dashboard reads its own bodies (small urlencoded forms) and cookies.
  const dashboard = app.get(ConfigService).get<boolean>('dashboard.enabled') === true;
  if (dashboard) configureDashboard(app);
  setGlobalPrefix(app);
  app.enableShutdownHooks();
  SwaggerModule.setup('docs', app, buildOpenApiDocument(app), { jsonDocumentUrl: 'docs-json' });
  await app.init();
  answerClientErrorsInEnvelope(app.getHttpServer());
  // Nest answers unknown paths only under the prefix; anything else ends here, still in the envelope.
  app.use((req: Request, res: Response) => {
    res.status(404).json(errorEnvelope(req, ErrorCode.NOT_FOUND, 'Resource not found.'));
  });
  return app;
}
