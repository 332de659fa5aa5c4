import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createGzip, gzipSync } from 'node:zlib';
import { type ListingsClient, retryPolicyOf } from './client';
import { mayRepeat, retryDelayMs } from './retry';
import { wait } from './wait';
import { type Import, ListingsApiError, unwrap } from './wire';

/** Statuses in which an import is still on its way; any other is where it stopped. */
const UNDERWAY = new Set<Import['status']>(['queued', 'running']);

/**
 * Bytes or a Node web stream, which fetch sends as they are. Not typed as RequestInit's body:
 * with TypeScript's default lib that is the DOM's, which Node's streams and buffers do not match.
 */
type UploadBody = Uint8Array | WebReadableStream;

const CONTENT_TYPES = { ndjson: 'application/x-ndjson', csv: 'text/csv' } as const;

/** Exactly one of `body`, `file` or `stream` (the feed's bytes) or `sourceUrl` (the service fetches it). */
export type FeedSource =
  | { body: string | Uint8Array; file?: never; stream?: never; sourceUrl?: never }
  | { file: string; body?: never; stream?: never; sourceUrl?: never }
  | {
      stream: Readable | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;
      body?: never;
      file?: never;
      sourceUrl?: never;
    }
  | { sourceUrl: string; body?: never; file?: never; stream?: never };

export type ImportFeedOptions = FeedSource & {
  format: keyof typeof CONTENT_TYPES;
  /** gzip the feed on the way, unless it is gzip already (a `.gz` file, or `gzipped: true`); not with `sourceUrl` */
  compress?: boolean;
  /** the bytes given are gzip already */
  gzipped?: boolean;
  mode?: 'upsert' | 'mirror';
  dryRun?: boolean;
  /** mirror only: the most removals before the import is held */
  maxRemovals?: number;
  /** the same key and feed answer with the first import instead of starting another */
  idempotencyKey?: string;
  /** the wait between status reads (default 1000 ms) */
  pollIntervalMs?: number;
  /** stops waiting (the import itself goes on; cancel it with POST /v1/imports/{id}/cancel) */
  signal?: AbortSignal;
  /** called once with the import as the service accepted it: its `id` is known from here on */
  onCreated?: (created: Import) => void;
  /** called with the import as each status read finds it (`counts.processed` grows) */
  onProgress?: (current: Import) => void;
};

/**
 * Uploads a feed, or names the URL the service fetches it from (`POST /v1/imports`), and waits
 * until the import stops: `succeeded`,
 * `succeeded_with_errors`, `failed`, `held` (a mirror import over its removal limit, waiting for
 * confirm or cancel) or `cancelled`. Returns the import as it stands then; read its lines with
 * `importResults`. `onCreated` gets the import as soon as it is accepted, `onProgress` each
 * status read. A refused upload throws ListingsApiError (after waiting out up to the client's
 * retries of a 429 or 503 with `Retry-After`), a failed one the fetch's error (call
 * again with the same `idempotencyKey`: the upload replays, or starts the import if it never
 * arrived); status reads that keep failing throw ImportStatusUnreadableError with the import's id.
 */
export async function importFeed(
  client: ListingsClient,
  options: ImportFeedOptions,
): Promise<Import> {
  const {
    format,
    mode = 'upsert',
    dryRun = false,
    maxRemovals,
    idempotencyKey,
    pollIntervalMs = 1000,
    signal,
    onCreated,
    onProgress,
  } = options;
  const params = {
    query: { mode, dryRun, ...(maxRemovals !== undefined ? { maxRemovals } : {}) },
    header: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : undefined,
  };
  const created = unwrap(
    options.sourceUrl !== undefined
      ? await client.POST('/v1/imports', {
          params,
          headers: { 'Content-Type': 'application/json' },
          body: { sourceUrl: options.sourceUrl, format },
          signal,
        })
      : await sendFeed(client, params, format, options, signal),
  ).data;
  onCreated?.(created);
  let current = created;
  let failures = 0;
  while (UNDERWAY.has(current.status)) {
    await wait(pollIntervalMs * (failures + 1), signal);
    signal?.throwIfAborted();
    try {
      current = unwrap(
        await client.GET('/v1/imports/{id}', { params: { path: { id: created.id } }, signal }),
      ).data;
    } catch (error) {
      signal?.throwIfAborted();
      if (!passing(error) || ++failures > MAX_STATUS_READ_FAILURES)
        throw new ImportStatusUnreadableError(created.id, error);
      continue;
    }
    failures = 0;
    // outside the try: a callback's own error is the caller's, not a failed status read
    onProgress?.(current);
  }
  return current;
}

/** Status reads that may fail in a row (each waiting longer) before importFeed gives up. */
const MAX_STATUS_READ_FAILURES = 5;

/** A network error, a 5xx or a 429: worth reading the status again. */
function passing(error: unknown): boolean {
  if (!(error instanceof ListingsApiError)) return true;
  return error.status >= 500 || error.status === 429;
}

/**
 * The import was accepted and goes on, but its status could not be read (the network or the
 * service failed several reads in a row, or refused one): `importId` names it, to read later
 * (`GET /v1/imports/{id}`) or to cancel. Calling importFeed again with the same
 * `idempotencyKey` finds the same import too.
 */
export class ImportStatusUnreadableError extends Error {
  override readonly name = 'ImportStatusUnreadableError';

  constructor(
    readonly importId: string,
    cause: unknown,
  ) {
    super(`Import ${importId} was accepted, but its status could not be read`, { cause });
  }
}

type UploadParams = {
  query: { mode: 'upsert' | 'mirror'; dryRun: boolean; maxRemovals?: number };
  header?: { 'Idempotency-Key': string };
};

/**
 * The upload, sent again after a 429 or 503 with `Retry-After` within the client's retry policy
 * (the client's fetch keeps no feed body for a second try). Bytes and a file can be read again;
 * a stream only once, so its refusal is returned.
 */
async function sendFeed(
  client: ListingsClient,
  params: UploadParams,
  format: ImportFeedOptions['format'],
  options: ImportFeedOptions,
  signal: AbortSignal | undefined,
) {
  const policy = retryPolicyOf(client);
  for (let retries = 0; ; retries++) {
    const result = await upload(client, params, format, options, signal);
    const delay = retryDelayMs(result.response, policy);
    if (
      options.stream !== undefined ||
      delay === undefined ||
      retries >= policy.maxRetries ||
      !mayRepeat('POST', params.header !== undefined, result.response.status)
    )
      return result;
    await wait(delay, signal);
    signal?.throwIfAborted();
  }
}

function upload(
  client: ListingsClient,
  params: UploadParams,
  format: ImportFeedOptions['format'],
  options: ImportFeedOptions,
  signal: AbortSignal | undefined,
) {
  const { body, gzipped } = uploadBody(options);
  return client.POST('/v1/imports', {
    params,
    headers: {
      'Content-Type': CONTENT_TYPES[format],
      ...(gzipped ? { 'Content-Encoding': 'gzip' } : {}),
    },
    // The document types an NDJSON or CSV body as text (`string`); the feed goes as bytes or a
    // stream (gzipped, read from a file), which fetch sends as they are.
    body: body as unknown as string,
    bodySerializer: (feed) => feed,
    duplex: 'half',
    signal,
  });
}

function uploadBody(options: ImportFeedOptions): { body: UploadBody; gzipped: boolean } {
  const alreadyGzip = Boolean(options.gzipped || options.file?.endsWith('.gz'));
  // bytes that are gzip already are never compressed twice
  const compress = Boolean(options.compress) && !alreadyGzip;
  const gzipped = alreadyGzip || compress;
  if (options.body !== undefined) {
    const bytes =
      typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : options.body;
    return { body: compress ? gzipSync(bytes) : bytes, gzipped };
  }
  const source = options.file !== undefined ? createReadStream(options.file) : options.stream!;
  // a web stream, whichever lib typed it (the DOM's or Node's global)
  const readable =
    source instanceof ReadableStream
      ? Readable.fromWeb(source as WebReadableStream)
      : Readable.from(source);
  const stream = compress ? readable.pipe(createGzip()) : readable;
  return { body: Readable.toWeb(stream), gzipped };
}
