import { Injectable, Optional } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import http from 'node:http';
import https from 'node:https';
import type { AllConfig } from '../../platform/config';
import type { LookupFunction } from '../../platform/outbound/dns-lookup';
import {
  AddressPolicy,
  assertPublicLiteral,
  blockedRangeOf,
  hostOf,
  publicOnlyLookup,
} from '../../platform/outbound/address-guard';
import { OutboundDns } from '../../platform/outbound/outbound-dns';
import { networkErrorText } from '../../platform/outbound/network-error';
import {
  bodyExcerpt,
  deliveryHeaders,
  isStalePooledSocket,
  OutgoingDelivery,
  RESPONSE_BODY_LIMIT_BYTES,
} from './webhook-request';

import { unixSeconds } from './webhook-signer';

export interface AttemptResult {
  ok: boolean;
  at: Date;
  responseStatus: number | null;
  error: string | null;
  responseBodyExcerpt: string | null;
  durationMs: number;
}

/**
 * How long an idle keep-alive connection is kept at most. A receiver that announces a shorter
 * keep-alive (`Keep-Alive: timeout=5`, Node's default) gets its connections dropped a second
 * before that (Node's agent does this).
 */
const IDLE_SOCKET_MS = 4_000;

/** A connection error on a pooled socket before any answer: the receiver had closed it. */
class StaleSocketError extends Error {
  constructor(cause: unknown) {
    super('The receiver closed a pooled connection', { cause });
  }
}

/** Resolves with the answer's status and at most RESPONSE_BODY_LIMIT_BYTES of its body. */
function readAnswer(
  response: http.IncomingMessage,
  resolve: (answer: { status: number; body: string }) => void,
  reject: (error: Error) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const finish = () => resolve({ status: response.statusCode ?? 0, body: bodyExcerpt(chunks) });
  response.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
    // Enough to show what the receiver said; the rest is not worth the memory.
    if (size >= RESPONSE_BODY_LIMIT_BYTES) {
      response.destroy();
      finish();
    }
  });
  response.on('end', finish);
  response.on('error', reject);
}

/**
 * One HTTP attempt: POST the signed payload, never follow a redirect, give up after the
 * configured time-out, read at most 64 KB of the answer. Success is a 2xx status; everything
 * else, a refused target included, comes back as a failed result rather than a throw.
 *
 * Connections are kept alive and reused for the next delivery to the same host and port, which
 * saves a TCP (and TLS) handshake per delivery on both sides. The SSRF check still covers every
 * connection: `lookup` checks the addresses a new socket connects to, so a pooled socket is
 * always one that was connected to a checked address (a name that now resolves elsewhere is
 * checked again when its next connection is opened), and an IP-literal URL is checked on every
 * attempt. A pooled socket the receiver closed just as it was reused fails before any answer
 * (ECONNRESET, EPIPE); that request is sent once more on a new connection, so it does not show
 * up as a failed attempt.
 */
@Injectable()
export class WebhookSender {
  private readonly timeoutMs: number;
  private readonly allowPrivateTargets: boolean;
  private readonly pooled: Record<'http:' | 'https:', http.Agent>;
  /** For the one repeat after a stale pooled socket: a new connection, not another pooled one. */
  private readonly fresh = {
    'http:': new http.Agent({ keepAlive: false }),
    'https:': new https.Agent({ keepAlive: false }),
  };
  private readonly lookup: LookupFunction;
  private readonly policy: AddressPolicy;

  constructor(
    config: ConfigService<AllConfig, true>,
    dns: OutboundDns,
    // Never provided in the application; the sender's tests hand in a policy under which the
    // test receiver's loopback address counts as public.
    @Optional() policy: AddressPolicy = blockedRangeOf,
  ) {
    const webhooks = config.get('webhooks', { infer: true });
    this.timeoutMs = webhooks.timeoutMs;
    // As many idle connections per receiver host (host and port) as attempts can run at once:
    // with fewer, a busy receiver's connections beyond that number are closed after each burst
    // and opened again for the next (a pool of 16 opened 270-410 connections per 5,000
    // deliveries to one host at 50 at once; see docs/performance.md).
    const idle = {
      keepAlive: true,
      maxFreeSockets: webhooks.workerConcurrency,
      timeout: IDLE_SOCKET_MS,
    };
    this.pooled = { 'http:': new http.Agent(idle), 'https:': new https.Agent(idle) };
    this.allowPrivateTargets = config.get('outbound.allowPrivateTargets', { infer: true });
    this.policy = policy;
    this.lookup = this.allowPrivateTargets ? dns.lookup : publicOnlyLookup(dns.lookup, policy);
  }

  async send(delivery: OutgoingDelivery): Promise<AttemptResult> {
    const at = new Date();
    const durationMs = () => Date.now() - at.getTime();
    try {
      const { status, body } = await this.post(delivery, unixSeconds(at));
      const ok = status >= 200 && status < 300;
      return {
        ok,
        at,
        responseStatus: status,
        error: ok ? null : this.describeStatus(status),
        responseBodyExcerpt: body,
        durationMs: durationMs(),
      };
    } catch (error) {
      return {
        ok: false,
        at,
        responseStatus: null,
        error: this.describeError(error),
        responseBodyExcerpt: null,
        durationMs: durationMs(),
      };
    }
  }

  private async post(
    delivery: OutgoingDelivery,
    timestamp: string,
  ): Promise<{ status: number; body: string }> {
    const url = new URL(delivery.url);
    if (!this.allowPrivateTargets) assertPublicLiteral(hostOf(url), this.policy);
    const protocol = url.protocol as 'http:' | 'https:';
    // One time-out for the attempt, a repeat on a new connection included.
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      return await this.request(url, this.pooled[protocol], signal, delivery, timestamp);
    } catch (error) {
      if (!(error instanceof StaleSocketError)) throw error;
      return this.request(url, this.fresh[protocol], signal, delivery, timestamp);
    }
  }

  private request(
    url: URL,
    agent: http.Agent,
    signal: AbortSignal,
    delivery: OutgoingDelivery,
    timestamp: string,
  ): Promise<{ status: number; body: string }> {
    const transport = url.protocol === 'https:' ? https : http;
    const body = Buffer.from(delivery.payload, 'utf8');
    return new Promise((resolve, reject) => {
      const request = transport.request(url, {
        method: 'POST',
        agent,
        lookup: this.lookup,
        signal,
        headers: deliveryHeaders(delivery, timestamp, body.length),
      });
      let answered = false;
      request.on('error', (error: NodeJS.ErrnoException) => {
        const state = { reusedSocket: request.reusedSocket, answered, aborted: signal.aborted };
        reject(isStalePooledSocket(error, state) ? new StaleSocketError(error) : error);
      });
      request.on('response', (response) => {
        answered = true;
        readAnswer(response, resolve, reject);
      });
      request.end(body);
    });
  }

  private describeStatus(status: number): string {
    return status >= 300 && status < 400
      ? `HTTP ${status}: redirects are not followed`
      : `HTTP ${status}`;
  }

  /**
   * What lastError says. A connection error's own message names the address it tried, which
   * the integrator must not learn (a DNS oracle): it is said without it, as `connect ECONNREFUSED`.
   */
  private describeError(error: unknown): string {
    const e = error as { name?: string; cause?: { name?: string } };
    if (e.name === 'AbortError' && e.cause?.name === 'TimeoutError') {
      return `Timed out after ${this.timeoutMs} ms`;
    }
    return networkErrorText(error);
  }
}
