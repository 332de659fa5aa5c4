import type { components, paths } from './schema';

/**
 * What goes over the wire, around the generated types. The service wraps every answer in an
 * envelope; a document that describes `data` alone is read through `DataOf`, and the lists it
 * does not describe at all through `UndescribedItems`. Both are no-ops once the document
 * describes the envelopes, and this file is the only one that knows about the difference.
 */

type Schemas = components['schemas'];

export type Meta = Schemas['Meta'];
export type PagePagination = Schemas['Pagination'];
export type ErrorBody = Schemas['ErrorEnvelope'];
export type FieldError = NonNullable<ErrorBody['error']['details']>[number];

/** `pagination` of a cursor list (events, import results): no page numbers or totals. */
export interface CursorPagination {
  limit: number;
  hasMore: boolean;
  /** the last item's cursor, to pass as `after`; null on an empty page */
  nextCursor: string | null;
}

export interface SuccessEnvelope<T> {
  success: true;
  data: T;
  meta: Meta;
}
export interface PageEnvelope<T> extends SuccessEnvelope<T[]> {
  pagination: PagePagination;
}
export interface CursorEnvelope<T> extends SuccessEnvelope<T[]> {
  pagination: CursorPagination;
}

/** The `data` of a described body: the body itself while the document leaves the envelope out. */
export type DataOf<B> = B extends { success: true; data: infer D } ? D : B;

type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type SuccessBody<Op> = Op extends { responses: infer R }
  ? JsonOf<R[200 & keyof R]> | JsonOf<R[201 & keyof R]> | JsonOf<R[202 & keyof R]>
  : never;

/** The `data` an operation answers with, e.g. `ResponseData<'/v1/listings/{id}', 'get'>`. */
export type ResponseData<P extends keyof paths, M extends keyof paths[P]> = DataOf<
  SuccessBody<paths[P][M]>
>;

/** One result line of an import, until the document describes `GET /v1/imports/{id}/results`. */
export interface ImportResult {
  /** null for a removal (after the lines) */
  line: number | null;
  externalId: string | null;
  outcome: 'created' | 'updated' | 'unchanged' | 'failed' | 'removed';
  listingId: string | null;
  error: { code: string; message: string; details?: FieldError[] } | null;
}

/** Items of the lists whose answer the document does not describe yet. */
interface UndescribedItems {
  '/v1/listings': ResponseData<'/v1/listings/{id}', 'get'>;
  '/v1/imports': ResponseData<'/v1/imports/{id}', 'get'>;
  '/v1/imports/{id}/results': ImportResult;
  '/v1/webhooks/{id}/deliveries': Schemas['WebhookDeliveryResponse'];
}

type ListPath = { [P in keyof paths]: paths[P] extends { get: unknown } ? P : never }[keyof paths];

/** The item type of a list: from the document when it describes the list, else the stand-in. */
export type ListItem<P extends ListPath> = [ResponseData<P, 'get'>] extends [readonly (infer I)[]]
  ? [ResponseData<P, 'get'>] extends [never]
    ? P extends keyof UndescribedItems
      ? UndescribedItems[P]
      : unknown
    : I
  : P extends keyof UndescribedItems
    ? UndescribedItems[P]
    : unknown;

export type Listing = ResponseData<'/v1/listings/{id}', 'get'>;
export type Import = ResponseData<'/v1/imports/{id}', 'get'>;
export type FeedEvent = ListItem<'/v1/events'>;
export type WebhookPayload = Schemas['WebhookDeliveryPayload'];

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
  return (
    typeof body === 'object' &&
    body !== null &&
    (body as ErrorBody).success === false &&
    typeof (body as ErrorBody).error?.message === 'string'
  );
}

/** What openapi-fetch resolves with. */
export interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/**
 * The envelope of a successful answer; throws ListingsApiError for any other. Use it around
 * every call: `const { data } = unwrap(await api.GET('/v1/listings/{id}', …))`.
 */
export function unwrap<R extends FetchResult>(
  result: R,
): SuccessEnvelope<DataOf<NonNullable<R['data']>>> {
  if (!result.response.ok || result.error !== undefined)
    throw new ListingsApiError(result.response.status, result.error);
  return result.data as SuccessEnvelope<DataOf<NonNullable<R['data']>>>;
}
