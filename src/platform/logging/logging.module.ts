import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { LoggerModule } from 'nestjs-pino';
import pino, { type Logger as Pino, stdSerializers } from 'pino';
import type { AllConfig } from '../config';
import { errorWithoutData } from './error-serializer';

/** The service's one pino instance: Nest's logs (nestjs-pino's Logger) and requestLogger's. */
export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/**
 * Censors these paths everywhere. Errors go through pino's own serializer first (an Error becomes a
 * plain object with its `type`), then errorWithoutData, as pino-http would chain them.
 */
@Module({
  providers: [
    {
      provide: ROOT_LOGGER,
      inject: [ConfigService],
      useFactory: (config: ConfigService<AllConfig, true>): Pino =>
        pino({
          level: config.get('app.logLevel', { infer: true }),
          serializers: { err: stdSerializers.wrapErrorSerializer(errorWithoutData) },
          redact: {
            paths: ['*.authorization', '*.secret', '*.key', '*.token'],
            censor: '[redacted]',
          },
        }),
    },
  ],
  exports: [ROOT_LOGGER],
})
class RootLoggerModule {}

/**
 * nestjs-pino is handed the logger ready-made: 4.x would otherwise build two from the options (one
 * for Nest's logs, one in its HTTP middleware, the latter only once the app is initialised).
 * `forRoutes: []` keeps nestjs-pino's AsyncLocalStorage middleware off (promise hooks on every
 * promise); requestLogger logs requests instead.
 */
@Module({
  imports: [
    RootLoggerModule,
    LoggerModule.forRootAsync({
      imports: [RootLoggerModule],
      inject: [ROOT_LOGGER],
      useFactory: (logger: Pino) => ({ forRoutes: [], pinoHttp: { logger } }),
    }),
  ],
  exports: [RootLoggerModule],
})
export class LoggingModule {}
