import http from 'node:http';
import https from 'node:https';
import { Readable, Transform } from 'node:stream';
import { assertPublicLiteral, BlockedTargetError, publicOnlyLookup } from './address-guard';
import type { LookupFunction } from './dns-lookup';
import { networkErrorText } from './network-error';

export const FETCH_FAILURES = [
  'unreachable',
  'http_error',
  'timeout',
  'too_large',
  'blocked_address',
  'unsupported_scheme',
  'too_many_redirects',
] as const;
export type FetchFailure = (typeof FETCH_FAILURES)[number];

/** Why a guarded GET did not bring back a whole body; `reason` is stable, `message` says more. */
export class FetchError extends Error {
  constructor(
    readonly reason: FetchFailure,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'FetchError';
  }
}

export interface FetchLimits {
  /** the whole exchange, redirects and body included */
  timeoutMs: number;
  /** the body is cut off past this many bytes */
  maxBytes: number;
  maxRedirects: number;
}

export interface FetchedBody {
  body: Readable;
  contentType: string | undefined;
  contentEncoding: string | undefined;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GETs an integrator's URL under the outbound rules: only http(s); every hop's address checked at
 * connect time (and IP literals before it), so DNS rebinding and redirects to private addresses
 * are refused; at most `maxRedirects` hops; the body cut off past `maxBytes`; one deadline for it
 * all. The body streams: nothing is held whole.
 */
export class GuardedFetch {
  private readonly lookup: LookupFunction;

  constructor(
    lookup: LookupFunction,
    private readonly allowPrivateTargets: boolean,
  ) {
    this.lookup = allowPrivateTargets ? lookup : publicOnlyLookup(lookup);
  }

  async get(url: string, limits: FetchLimits): Promise<FetchedBody> {
    const deadline = AbortSignal.timeout(limits.timeoutMs);
    let target = new URL(url);
    for (let hop = 0; ; hop++) {
      const response = await this.request(target, deadline);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECTS.has(status) && location) {
        response.resume();
        if (hop >= limits.maxRedirects)
          throw new FetchError('too_many_redirects', `More than ${limits.maxRedirects} redirects.`);
        target = redirectTarget(location, target, status);
        continue;
      }
      if (status < 200 || status >= 300) {
        response.resume();
        throw new FetchError('http_error', `The URL answered HTTP ${status}.`, status);
      }
      const declared = Number(response.headers['content-length']);
      if (declared > limits.maxBytes) {
        response.destroy();
        throw tooLarge(limits.maxBytes);
      }
      return {
        body: capped(response, limits.maxBytes, deadline),
        contentType: response.headers['content-type'],
        contentEncoding: response.headers['content-encoding'],
      };
    }
  }

  private request(target: URL, deadline: AbortSignal): Promise<http.IncomingMessage> {
    const client = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : null;
    // A redirect to file:, ftp:, data:… is the server's answer, not a passing fault: no retry helps.
    if (!client)
      throw new FetchError(
        'unsupported_scheme',
        `Only http and https URLs can be fetched, not ${target.protocol.slice(0, 20)}.`,
      );
    try {
      if (!this.allowPrivateTargets) assertPublicLiteral(target.hostname.replace(/^\[|\]$/g, ''));
    } catch (error) {
      throw blockedOr(error);
    }
    return new Promise((resolve, reject) => {
      try {
        const request = client.get(
          target,
          {
            lookup: this.lookup,
            signal: deadline,
            headers: { 'accept-encoding': 'gzip, identity' },
          },
          resolve,
        );
        request.on('error', (error) => reject(failureOf(error, deadline)));
      } catch (error) {
        // Thrown before any request left (a URL Node cannot request): classified all the same.
        reject(failureOf(error as Error, deadline));
      }
    });
  }
}

function tooLarge(maxBytes: number): FetchError {
  return new FetchError('too_large', `The body is larger than ${maxBytes} bytes.`);
}

function blockedOr(error: unknown): Error {
  return error instanceof BlockedTargetError
    ? new FetchError('blocked_address', error.message)
    : (error as Error);
}

function failureOf(error: unknown, deadline: AbortSignal): Error {
  if (error instanceof FetchError) return error;
  if (deadline.aborted) return new FetchError('timeout', 'The URL did not answer in time.');
  if (error instanceof BlockedTargetError) return blockedOr(error);
  return new FetchError(
    'unreachable',
    `The URL could not be reached (${networkErrorText(error)}).`,
  );
}

/** Where a redirect leads; a Location that is no URL is the server's fault, as an error status is. */
function redirectTarget(location: string, base: URL, status: number): URL {
  try {
    return new URL(location, base);
  } catch {
    throw new FetchError(
      'http_error',
      `The URL redirected (HTTP ${status}) to an invalid Location.`,
      status,
    );
  }
}

/** The body, failing with too_large past `maxBytes` and with timeout at the deadline. */
function capped(body: http.IncomingMessage, maxBytes: number, deadline: AbortSignal): Readable {
  let bytes = 0;
  const limiter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > maxBytes) return done(tooLarge(maxBytes));
      done(null, chunk);
    },
  });
  body.on('error', (error) => limiter.destroy(failureOf(error, deadline)));
  limiter.on('error', () => body.destroy());
  return body.pipe(limiter);
}
