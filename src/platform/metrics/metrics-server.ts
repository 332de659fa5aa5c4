import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { createServer, Server } from 'node:http';
import { noSniff } from '../http/no-sniff';
import { once } from 'node:events';
import type { AllConfig } from '../config';
import { metricsHandler } from './http-metrics.middleware';
import { Metrics } from './metrics';

/** A port apart from the public one: scrapes need no API key and the public cannot read them. */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MetricsServer.name);
  private server: Server | undefined;

  constructor(
    private readonly metrics: Metrics,
    private readonly config: ConfigService<AllConfig, true>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { port, host } = this.config.get('metrics', { infer: true });
    if (port === undefined) return;
    const serve = metricsHandler(this.metrics);
    this.server = createServer((req, res) => {
      noSniff(req, res);
      if (req.url?.split('?')[0] === '/metrics') return serve(req, res);
      res.writeHead(404).end();
    });
    this.server.listen(port, host);
    await once(this.server, 'listening');
    this.logger.log(`Metrics on http://${host}:${port}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server!.close(resolve));
  }
}
