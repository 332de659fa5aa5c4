import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A minimal webhook receiver that answers 200 (at once, or after `delayMs`) and timestamps every delivery. */
export class BenchReceiver {
  readonly arrivals: { at: number; event: string; id: string }[] = [];
  /** TCP connections accepted so far */
  connections = 0;
  private constructor(private readonly server: Server) {}

  static async start(delayMs = 0): Promise<BenchReceiver> {
    const server = createServer();
    const receiver = new BenchReceiver(server);
    server.on('connection', () => receiver.connections++);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString());
        receiver.arrivals.push({ at: Date.now(), event: body.event, id: body.data.id });
        if (delayMs > 0) setTimeout(() => res.end('ok'), delayMs);
        else res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
