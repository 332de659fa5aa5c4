import { createHmac } from 'node:crypto';
import {
  createServer,
  IncomingHttpHeaders,
  IncomingMessage,
  Server,
  ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { checkDelivery } from './contract';

export interface ReceivedWebhook {
  path: string;
  /** the sender's port: requests with the same one came over the same connection */
  remotePort: number;
  headers: IncomingHttpHeaders;
  /** the body exactly as received, which is what the signature covers */
  rawBody: string;
  body: {
    event: string;
    eventId?: string | null;
    deliveryId: string;
    timestamp: string;
    data: Record<string, unknown>;
  };
}

/** Close the connection without answering, as a receiver does that dropped it as idle. */
export interface DroppedConnection {
  drop: true;
}

export interface ScriptedReply {
  drop?: never;
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** answer only after this long (time-out and shutdown tests) */
  delayMs?: number;
  /** answer only once this settles (tests that order an answer after something else) */
  after?: Promise<unknown>;
}

type Reply = ScriptedReply | DroppedConnection | ((request: ReceivedWebhook) => ScriptedReply);

/**
 * A real HTTP receiver on 127.0.0.1 for delivery tests: records every request with its raw
 * body and headers and answers from a script per path (`replyWith('/a', 500, 500)`), then
 * with that path's default (`byDefault('/a', 500)`), else 200.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly scripts = new Map<string, Reply[]>();
  private readonly defaults = new Map<string, Reply>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server);
    server.on('request', (req, res) => void receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/hooks'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The next requests to `path` get these answers, in order; a number is a bare status. */
  replyWith(path: string, ...replies: (number | Reply)[]): this {
    const script = this.scripts.get(path) ?? [];
    script.push(...replies.map(asReply));
    this.scripts.set(path, script);
    return this;
  }

  /** Every request to `path` once its script has run out. */
  byDefault(path: string, reply: number | Reply): this {
    this.defaults.set(path, asReply(reply));
    return this;
  }

  /** Requests to exactly `path`. */
  at(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Resolves with the requests to `path` once there are `count` of them. */
  async waitFor(path: string, count: number, timeoutMs = 15_000): Promise<ReceivedWebhook[]> {
    await eventually(
      () => this.at(path).length >= count,
      timeoutMs,
      () => `expected ${count} webhook requests at ${path}, got ${this.at(path).length}`,
    );
    return this.at(path);
  }

  /** Closes every connection not in the middle of a request, as a receiver's idle time-out does. */
  closeIdleConnections(): void {
    this.server.closeIdleConnections();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    let body: ReceivedWebhook['body'];
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = { event: '', deliveryId: '', timestamp: '', data: {} };
    }
    const request: ReceivedWebhook = {
      path: req.url ?? '',
      remotePort: req.socket.remotePort ?? 0,
      headers: req.headers,
      rawBody,
      body,
    };
    this.received.push(request);
    // Only the service's deliveries carry webhook-id; feeds and images are fetched with GET.
    if (req.method === 'POST' && req.headers['webhook-id'] !== undefined)
      checkDelivery(req.headers, rawBody);
    const path = request.path;
    const next = this.scripts.get(path)?.shift() ??
      this.defaults.get(path) ?? { status: 200, body: 'ok' };
    const reply = typeof next === 'function' ? next(request) : next;
    if (reply.drop) return void req.socket.destroy();
    if (reply.after) await reply.after;
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    res.writeHead(reply.status, reply.headers).end(reply.body ?? '');
  }
}

const asReply = (reply: number | Reply): Reply =>
  typeof reply === 'number' ? { status: reply } : reply;

/** Polls `condition` until it holds; fails with `describe()` after `timeoutMs`. */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
  describe: () => string = () => 'condition not met',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Checks a received request the way an integrator's receiver would, independently of the
 * service's own signer: headers present, signature over "<timestamp>.<raw body>", and the
 * Standard Webhooks headers verified by the published `standardwebhooks` package with the
 * secret exactly as the API showed it. With `secrets` (a rotation), each must verify.
 */
export function expectSignedWebhook(request: ReceivedWebhook, ...secrets: string[]): void {
  const { headers, rawBody, body } = request;
  const timestamp = headers['x-service-timestamp'] as string;
  expect(headers['content-type']).toBe('application/json');
  expect(headers['x-service-event']).toBe(body.event);
  expect(headers['x-service-delivery']).toBe(body.deliveryId);
  expect(timestamp).toMatch(/^\d{10}$/);
  expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
  const expected = secrets.map(
    (secret) =>
      `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`,
  );
  expect(headers['x-service-signature']).toBe(expected.join(','));
  expect(body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  expect(headers['webhook-id']).toBe(body.deliveryId);
  expect(headers['webhook-timestamp']).toBe(timestamp);
  expect((headers['webhook-signature'] as string).split(' ')).toHaveLength(secrets.length);
  for (const secret of secrets) {
    expect(new Webhook(secret).verify(rawBody, headers as Record<string, string>)).toEqual(body);
  }
}
