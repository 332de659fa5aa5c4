import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import type { AllConfig } from '../config';

type RequestWithId = IncomingMessage & { id?: string; originalUrl?: string };

/**
 * JSON logs with the request id on every line. Request headers are never serialised, so an
 * API key, admin token or webhook secret cannot reach the logs through them.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>) => ({
        pinoHttp: {
          level: config.get('app.logLevel', { infer: true }),
          genReqId: (req: RequestWithId) => req.id ?? 'unknown',
          customProps: (req: RequestWithId) => ({ requestId: req.id }),
          serializers: {
            req: (req: { method?: string; url?: string }) => ({ method: req.method, url: req.url }),
            res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
          },
          redact: {
            paths: ['*.authorization', '*.secret', '*.key', '*.token'],
            censor: '[redacted]',
          },
          autoLogging: {
            ignore: (req: RequestWithId) =>
              (req.originalUrl ?? req.url ?? '').startsWith('/health'),
          },
          customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) =>
            error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
        },
      }),
    }),
  ],
})
export class LoggingModule {}
