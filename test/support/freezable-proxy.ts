import { once } from 'node:events';
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP proxy that can stop forwarding without closing anything: to the service, a server that
 * froze (SIGSTOP, a partition without resets). Connections stay open; bytes wait until `thaw`.
 */
export class FreezableProxy {
  private frozen = false;
  private readonly pairs = new Set<[Socket, Socket]>();
  private readonly server = createServer((client) => {
    const upstream = createConnection(this.target.port, this.target.host);
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    for (const [from, to] of [pair, [upstream, client] as const]) {
      if (this.frozen) from.pause();
      from.pipe(to);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        to.destroy();
        this.pairs.delete(pair);
      });
    }
  });

  private constructor(private readonly target: { host: string; port: number }) {}

  static async start(target: { host: string; port: number }): Promise<FreezableProxy> {
    const proxy = new FreezableProxy(target);
    proxy.server.listen(0, '127.0.0.1');
    await once(proxy.server, 'listening');
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  freeze(): void {
    this.frozen = true;
    for (const pair of this.pairs) for (const socket of pair) socket.pause();
  }

  thaw(): void {
    this.frozen = false;
    for (const pair of this.pairs) for (const socket of pair) socket.resume();
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) for (const socket of pair) socket.destroy();
    this.server.close();
    await once(this.server, 'close');
  }
}
