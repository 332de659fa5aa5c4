import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { LoggerModule } from 'nestjs-pino';
import type { AllConfig } from '../config';
import { errorWithoutData } from './error-serializer';

/**
 * Censors these paths everywhere. `forRoutes: []` keeps nestjs-pino's AsyncLocalStorage middleware
 * off (promise hooks on every promise); requestLogger logs requests instead.
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
