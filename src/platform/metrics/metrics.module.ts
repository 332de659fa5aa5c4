import { Global, Module } from '@nestjs/common';
import { DatabaseGauges } from './database-gauges';
import { Metrics } from './metrics';
import { MetricsServer } from './metrics-server';

/** In every role: the instruments, the database gauges and the METRICS_PORT listener. */
@Global()
@Module({
  providers: [Metrics, DatabaseGauges, MetricsServer],
  exports: [Metrics],
})
export class MetricsModule {}
