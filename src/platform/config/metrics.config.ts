import { registerAs } from '@nestjs/config';
import { IsBoolean, IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { ToBool, ToInt } from './config-transforms';
import { validateConfig } from './validate-config';

class MetricsEnv {
  /** a listener of its own serving GET /metrics (every role); unset: none */
  @IsOptional() @ToInt() @IsInt() @Min(1) @Max(65535) METRICS_PORT?: number;
  @IsString() @MinLength(1) METRICS_HOST: string = '0.0.0.0';
  /** also answer GET /metrics on the public API port (off: the public may not read it) */
  @ToBool() @IsBoolean() METRICS_ON_API_PORT: boolean = false;
}

export interface MetricsConfig {
  port: number | undefined;
  host: string;
  onApiPort: boolean;
}

export const metricsConfig = registerAs('metrics', (): MetricsConfig => {
  const env = validateConfig(process.env, MetricsEnv);
  return { port: env.METRICS_PORT, host: env.METRICS_HOST, onApiPort: env.METRICS_ON_API_PORT };
});
