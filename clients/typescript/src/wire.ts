import type { components, paths } from './schema';

/**
 * What goes over the wire, named from the generated types. The document describes every answer
 * as an envelope component (`SuccessEnvelope`, `PageEnvelope`, `CursorPageEnvelope`,
 * `ErrorEnvelope`) with the operation's `data` added by allOf. The generator writes that as
 * `Envelope & { data?: D }`, which types `data` as `D | undefined` although the envelope requires
 * it; `Success` reads it back as required. This file is the only one that knows about that.
 */

type Schemas = components['schemas'];

export type Meta = Schemas['Meta'];
export type PagePagination = Schemas['Pagination'];
/** `pagination` of a cursor list (events, import results): no page numbers or totals. */
export type CursorPagination = Schemas['CursorPagination'];
export type ErrorBody = Schemas['ErrorEnvelope'];
export type FieldError = NonNullable<ErrorBody['error']['details']>[number];

export type Listing = Schemas['Listing'];
export type ListingImage = Schemas['ListingImage'];
export type Import = Schemas['Import'];
/** One result line of an import (`GET /v1/imports/{id}/results`). */
export type ImportResult = Schemas['ImportResult'];
/** One event of the feed (`GET /v1/events`), discriminated on `event`. */
export type FeedEvent = Schemas['Event'];
/** The body of a webhook delivery, discriminated on `event` (`webhook.test` included). */
export type WebhookPayload = Schemas['WebhookPayload'];
/** One delivery of a webhook endpoint (`GET /v1/webhooks/{id}/deliveries`). */
export type Delivery = Schemas['Delivery'];
/**
 * One line of an import feed: an NDJSON line's object, or a CSV row's cells by column. It is the
 * body of `POST /v1/listings` with `externalId` required, as `PUT /v1/listings/by-external-id`
 * takes it: each line is applied as that PUT.
 */
export type FeedLine = Omit<Schemas['CreateListingRequest'], 'externalId'> & { externalId: string };

/** A value the JSON carried: anything but `undefined` (`null` stays where the document allows it). */
type Sent<T> = Exclude<T, undefined>;

/**
 * A success body as received: the document's envelope with `data` required, as the envelope
 * component says (the generator leaves the allOf's `data` optional).
 */
export type Success<B extends { data?: unknown }> = B & { data: Sent<B['data']> };

/** `{ success, data, meta }` around `T`, as the document's `SuccessEnvelope` describes it. */
export type SuccessEnvelope<T> = Omit<Schemas['SuccessEnvelope'], 'data'> & { data: T };
/** A page of a page-numbered list (listings, imports, deliveries): `PageEnvelope`. */
export type PageEnvelope<T> = Omit<Schemas['PageEnvelope'], 'data'> & { data: T[] };
/** A page of a cursor list (events, import results): `CursorPageEnvelope`. */
export type CursorEnvelope<T> = Omit<Schemas['CursorPageEnvelope'], 'data'> & { data: T[] };

type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type SuccessBody<Op> = Op extends { responses: infer R }
  ? JsonOf<R[200 & keyof R]> | JsonOf<R[201 & keyof R]> | JsonOf<R[202 & keyof R]>
  : never;
type DataOfBody<B> = B extends { data?: unknown } ? Sent<B['data']> : never;

/** The `data` an operation answers with, e.g. `ResponseData<'/v1/listings/{id}', 'get'>`. */
export type ResponseData<P extends keyof paths, M extends keyof paths[P]> = DataOfBody<
  SuccessBody<paths[P][M]>
>;

type ListPath = { [P in keyof paths]: paths[P] extends { get: unknown } ? P : never }[keyof paths];

/** The item type of a list, e.g. `ListItem<'/v1/webhooks/{id}/deliveries'>` (never for a non-list). */
export type ListItem<P extends ListPath> =
  ResponseData<P, 'get'> extends readonly (infer I)[] ? I : never;

/** An error answer, or an answer that is not the envelope at all (a proxy's 502 page). */
export class ListingsApiError extends Error {
  override readonly name = 'ListingsApiError';
  /** `VALIDATION_ERROR`, `NOT_FOUND`, …; `HTTP_ERROR` when the body was not the error envelope */
  readonly code: string;
  /** one entry per field at fault (400 only) */
  readonly details: FieldError[];
  readonly requestId: string | undefined;

  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const envelope = isErrorBody(body) ? body : undefined;
    super(envelope?.error.message ?? `HTTP ${status}`);
    this.code = envelope?.error.code ?? 'HTTP_ERROR';
    this.details = envelope?.error.details ?? [];
    this.requestId = envelope?.meta.requestId;
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== 'object' || body === null || !('success' in body) || body.success !== false)
    return false;
  if (!('error' in body) || typeof body.error !== 'object' || body.error === null) return false;
  return 'message' in body.error && typeof body.error.message === 'string';
}

/** What openapi-fetch resolves with, its success body being `B`. */
export interface FetchResult<B = unknown> {
  data?: B;
  error?: unknown;
  response: Response;
}

/** The success envelope is what the JSON says it is: `success: true` and a `data`. */
function isSuccess<B extends { data?: unknown }>(body: B | undefined): body is Success<B> {
  return (
    typeof body === 'object' &&
    body !== null &&
    'success' in body &&
    body.success === true &&
    body.data !== undefined
  );
}

/**
 * The envelope of a successful answer, typed by the document; throws ListingsApiError for any
 * other (an error status, or a 2xx whose body is not the success envelope). Use it around every
 * call: `const { data } = unwrap(await api.GET('/v1/listings/{id}', …))`.
 */
export function unwrap<B extends { success: true; data?: unknown }>(
  result: FetchResult<B>,
): Success<B> {
  const body = result.data;
  if (!result.response.ok || result.error !== undefined || !isSuccess(body))
    throw new ListingsApiError(result.response.status, result.error ?? body);
  return body;
}
