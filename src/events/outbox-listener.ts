import { Logger } from '@nestjs/common';
import { Client } from 'pg';

const RECONNECT_DELAY_MS = 1_000;

/**
 * A dedicated connection LISTENing on a channel, calling `onNotify` for every notification and
 * reconnecting when the connection drops. Losing it costs only latency: the relay still polls.
 */
export class PgChannelListener {
  private readonly logger = new Logger(PgChannelListener.name);
  private client: Client | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly channel: string,
    private readonly onNotify: () => void,
  ) {}

  async start(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({
      connectionString: this.databaseUrl,
      application_name: 'listings-service-relay',
    });
    client.on('notification', () => this.onNotify());
    client.on('error', () => this.reconnect(client));
    client.on('end', () => this.reconnect(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
      this.client = client;
    } catch (error) {
      this.logger.warn({ err: error }, `Cannot LISTEN on ${this.channel}; relying on polling`);
      this.reconnect(client);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.client?.end().catch(() => undefined);
  }

  private reconnect(client: Client): void {
    if (this.stopped || this.retry || (this.client && this.client !== client)) return;
    this.client = undefined;
    client.removeAllListeners();
    void client.end().catch(() => undefined);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.start();
    }, RECONNECT_DELAY_MS);
  }
}
