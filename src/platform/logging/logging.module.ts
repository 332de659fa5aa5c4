import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { LoggerModule } from 'nestjs-pino';
import type { AllConfig } from '../config';
import { errorWithoutData } from './error-serializer';

/**
 * JSON logs through one pino instance. Request headers are never serialised (see
 * request-logger.ts), and these paths are censored wherever they appear, so an API key, admin
 * token or webhook secret cannot reach the logs; errors are logged without the data they carry
 * (SQL parameters, bodies: see error-serializer.ts).
 *
 * `forRoutes: []` keeps nestjs-pino's own request middleware off: it binds a logger per request
 * in an AsyncLocalStorage, and on Node 20/22 that turns on promise hooks for every promise the
 * request makes, a measurable cost on every request (docs/performance.md). Request logs come from
 * `requestLogger` instead; the one request-scoped application log (an unhandled error) names
 * its request id itself.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>) => ({
        forRoutes: [],
        pinoHttp: {
          level: config.get('app.logLevel', { infer: true }),
          serializers: { err: errorWithoutData },
          redact: {
            paths: ['*.authorization', '*.secret', '*.key', '*.token'],
            censor: '[redacted]',
          },
        },
      }),
    }),
  ],
})
export class LoggingModule {}
