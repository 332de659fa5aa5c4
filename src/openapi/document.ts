import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type {
  OperationObject,
  ParameterObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { BulkCreateResponse } from '../bulk/dto/bulk-create.response';
import { BulkDeleteResponse } from '../bulk/dto/bulk-delete.response';
import { BulkSoldResponse } from '../bulk/dto/bulk-sold.response';
import { BulkRenewResponse } from '../bulk/dto/bulk-renew.response';
import { BulkUpdateResponse } from '../bulk/dto/bulk-update.response';
import { MeResponse } from '../accounts/dto/me.response';
import { EVENT_DATA_SCHEMAS } from '../events/dto/event-payloads.response';
import type { EventName } from '../events/event-types';
import { GalleryResponse } from '../images/dto/image.response';
import { ImportResponse, ImportResultResponse } from '../imports/dto/import.response';
import { ImportSourceDto } from '../imports/dto/import-source.dto';
import { ImageResponse, ListingResponse } from '../listings/dto/listing.response';
import { UsageResponse } from '../usage/dto/usage.response';
import {
  RecoverResponse,
  WebhookDeliveryDetailResponse,
  WebhookDeliveryResponse,
} from '../webhooks/deliveries/dto/webhook-delivery.response';
import {
  CreatedWebhookEndpointResponse,
  WebhookEndpointResponse,
} from '../webhooks/endpoints/dto/webhook-endpoint.response';
import { Answer, takeOperationSpec } from '../common/http/operation.decorator';
import { describeResponseHeaders } from './headers';
import { eventSchemas, ref, STATIC_SCHEMAS, webhookOperations } from './schemas';

/** Answers whose class a route's return type may not name (a union, a Paginated<T>, a stream). */
const MODELS = [
  ListingResponse,
  ImageResponse,
  GalleryResponse,
  ImportResponse,
  ImportResultResponse,
  ImportSourceDto,
  MeResponse,
  UsageResponse,
  BulkCreateResponse,
  BulkUpdateResponse,
  BulkDeleteResponse,
  BulkSoldResponse,
  BulkRenewResponse,
  WebhookEndpointResponse,
  CreatedWebhookEndpointResponse,
  WebhookDeliveryResponse,
  WebhookDeliveryDetailResponse,
  RecoverResponse,
  ...Object.values(EVENT_DATA_SCHEMAS),
];

/** Class names → the names a generated client shows; any other `FooDto` becomes `FooRequest`. */
const SCHEMA_NAMES: Record<string, string> = {
  MeResponse: 'Me',
  UsageResponse: 'Usage',
  BulkCreateResponse: 'BulkCreateResult',
  BulkUpdateResponse: 'BulkUpdateResult',
  BulkDeleteResponse: 'BulkRemoveResult',
  BulkSoldResponse: 'BulkSoldResult',
  BulkRenewResponse: 'BulkRenewResult',
  ListingResponse: 'Listing',
  ImageResponse: 'ListingImage',
  GalleryResponse: 'Gallery',
  CreatedWebhookEndpointResponse: 'WebhookEndpointWithSecret',
  WebhookEndpointResponse: 'WebhookEndpoint',
  WebhookDeliveryResponse: 'Delivery',
  WebhookDeliveryDetailResponse: 'DeliveryDetail',
  DeliveryAttemptResponse: 'DeliveryAttempt',
  RecoverResponse: 'RecoverResult',
  ImportResponse: 'Import',
  ImportResultResponse: 'ImportResult',
  ImportErrorResponse: 'ImportError',
  ImportCountsData: 'ImportCounts',
};

const schemaName = (name: string) =>
  SCHEMA_NAMES[name] ?? name.replace(/Dto$/, 'Request').replace(/Response$/, '');

const NDJSON = 'application/x-ndjson';

const DESCRIPTION = `Create, manage and synchronise classified listings.

**Envelope.** Every JSON answer is an envelope: \`{success: true, data, meta}\` on success,
\`{success: true, data: [...], pagination, meta}\` for lists (\`Pagination\` for page lists,
\`CursorPagination\` for the event feed and import results), and
\`{success: false, error: {code, message, details}, meta}\` on failure (\`ErrorEnvelope\`).
Each operation's schema shows the whole envelope; \`data\` is the resource.

**Authentication.** \`Authorization: Bearer svc_live_…\` or \`svc_test_…\` (an opaque API key).
A test key works in a separate sandbox: see the test-helpers operations.

**Errors.** 400 names each field at fault in \`error.details\` (also for a body that is not
UTF-8 JSON, is too large or has the wrong Content-Type); another account's resource answers 404;
429 carries \`Retry-After\`.

**Headers.** Every answer carries \`X-Request-Id\`; an authenticated one past the key check, the
key's rate-limit state (\`X-RateLimit-*\`, \`RateLimit\`, \`RateLimit-Policy\`); a replayed
idempotent one, \`Idempotent-Replayed: true\`.

**Webhooks.** Each event is POSTed to your endpoints as described under \`x-webhooks\`, signed
twice: the service's own \`X-Service-Signature\` and Standard Webhooks' \`webhook-signature\`.`;

const SUCCESS_DESCRIPTIONS: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted: the work continues in the background',
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'VALIDATION_ERROR: bad input; `details` names each field',
  401: 'UNAUTHORIZED: missing, malformed, unknown or revoked API key',
  403: 'FORBIDDEN: account not approved, or key without the scope',
  404: "NOT_FOUND: no such resource in the key's account and mode",
  429: 'RATE_LIMITED: wait `Retry-After` seconds',
  500: 'SERVER_ERROR: an internal error; retry, or contact support with `meta.requestId`',
  503: 'Not ready: `details` names each failing check',
};

/** Walks every object of a JSON tree (the document is plain JSON: no cycles). */
function visit(node: unknown, each: (value: Record<string, unknown>) => void): void {
  if (Array.isArray(node)) node.forEach((item) => visit(item, each));
  else if (node && typeof node === 'object') {
    each(node as Record<string, unknown>);
    Object.values(node).forEach((value) => visit(value, each));
  }
}

function renameSchemas(document: OpenAPIObject): void {
  const schemas = document.components!.schemas!;
  document.components!.schemas = Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [schemaName(name), schema]),
  );
  visit(document, (node) => {
    const target = node.$ref;
    if (typeof target === 'string' && target.startsWith('#/components/schemas/'))
      node.$ref = `#/components/schemas/${schemaName(target.slice('#/components/schemas/'.length))}`;
  });
}

/** The API has no fractional numbers: a number without a format is an integer. */
function integersAsIntegers(document: OpenAPIObject): void {
  visit(document, (node) => {
    if (node.type === 'number' && node.format === undefined) node.type = 'integer';
  });
}

/**
 * OpenAPI 3.0's `nullable` widens only the `type` beside it, so `{nullable, allOf: [$ref]}` (what
 * Nest writes for a nullable class property) still refuses null: spell it as a choice instead.
 */
function nullableReferences(document: OpenAPIObject): void {
  visit(document, (node) => {
    const allOf = node.allOf as SchemaObject[] | undefined;
    if (node.nullable !== true || allOf?.length !== 1) return;
    for (const key of ['nullable', 'type', 'allOf']) delete node[key];
    node.oneOf = [allOf[0], { type: 'string', nullable: true, enum: [null] }];
  });
}

/** OpenAPI 3.0.3: `nullable` does not widen an `enum` beside it; null must be one of its values. */
function nullableEnums(document: OpenAPIObject): void {
  visit(document, (node) => {
    const values = node.enum as unknown[] | undefined;
    if (node.nullable === true && values && !values.includes(null)) node.enum = [...values, null];
  });
}

function envelopeOf(answer: Answer): SchemaObject {
  if ('data' in answer)
    return {
      allOf: [ref('SuccessEnvelope'), { type: 'object', properties: { data: ref(answer.data) } }],
    };
  const [envelope, item] =
    'page' in answer ? ['PageEnvelope', answer.page] : ['CursorPageEnvelope', answer.cursor];
  return {
    allOf: [
      ref(envelope),
      { type: 'object', properties: { data: { type: 'array', items: ref(item) } } },
    ],
  };
}

const errorResponse = (status: number): ResponseObject => ({
  description: ERROR_DESCRIPTIONS[status],
  ...(status === 429
    ? { headers: { 'Retry-After': { description: 'seconds', schema: { type: 'integer' } } } }
    : {}),
  content: { 'application/json': { schema: ref('ErrorEnvelope') } },
});

/**
 * Statuses every route of a kind can answer: any route may fail inside (500); any /v1 route needs
 * a key (401, 403, 429) and may get a body it cannot read (400); a route with an id in its path
 * may find nothing (404).
 */
function errorStatuses(path: string, operation: OperationObject, extra: number[] = []): number[] {
  const isPublic = !operation.security?.length;
  const statuses = isPublic ? [500] : [400, 401, 403, 429, 500];
  // PUT by externalId creates what it does not find: its parameter never answers 404.
  if (!isPublic && /\{(?!externalId\})/.test(path)) statuses.push(404);
  return [...statuses, ...extra].sort();
}

/** Nest marks a query parameter with a default value required; a default means it may be left out. */
function optionalDefaults(operation: OperationObject): void {
  for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
    const schema = parameter.schema as SchemaObject | undefined;
    if (parameter.in === 'query' && schema?.default !== undefined) parameter.required = false;
  }
}

function describeOperations(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of ['get', 'put', 'post', 'patch', 'delete'] as const) {
      const operation = item[method];
      if (!operation) continue;
      const spec = takeOperationSpec(operation);
      if (!spec) throw new Error(`${method} ${path} has no @Operation(...) on its handler`);
      operation.operationId = spec.operationId;
      // The Swagger plugin puts a handler's doc comment in `summary`: it becomes the description.
      const comment = operation.summary;
      operation.summary = spec.summary;
      if (comment && comment !== spec.summary) operation.description = comment;
      if (!operation.security?.length) operation.security = [];
      optionalDefaults(operation);
      const responses: Record<string, ResponseObject> = {};
      for (const [status, answer] of Object.entries(spec.success)) {
        responses[status] = {
          description:
            (operation.responses[status] as ResponseObject | undefined)?.description ||
            SUCCESS_DESCRIPTIONS[status],
          content: { 'application/json': { schema: envelopeOf(answer) } },
        };
      }
      for (const status of errorStatuses(path, operation, spec.extraErrors))
        responses[status] = errorResponse(status);
      operation.responses = responses;
    }
  }
}

/** What the decorators cannot say of request bodies read by hand and of the NDJSON download. */
function describeBodies(document: OpenAPIObject): void {
  const addImage = document.paths['/v1/listings/{id}/images'].post!;
  const order = ((document.components!.schemas!.AddImageRequest as SchemaObject).properties ?? {})
    .order;
  addImage.requestBody = {
    required: true,
    content: {
      'application/json': { schema: ref('AddImageRequest') },
      'multipart/form-data': {
        schema: {
          type: 'object',
          required: ['file'],
          properties: {
            file: { type: 'string', format: 'binary', description: 'the image, at most 10 MB' },
            ...(order ? { order } : {}),
          },
        },
      },
    },
  };
  const createImport = document.paths['/v1/imports'].post!;
  createImport.requestBody = {
    required: true,
    description:
      'The feed itself (NDJSON or CSV, optionally with `Content-Encoding: gzip`), or a URL for ' +
      'the worker to fetch.',
    content: {
      [NDJSON]: { schema: { type: 'string', description: 'one listing per line' } },
      'text/csv': {
        schema: { type: 'string', description: 'a header row, then one listing per row' },
      },
      'application/json': { schema: ref('ImportSourceRequest') },
    },
  };
  (createImport.responses['202'] as ResponseObject).headers = {
    Location: { description: 'the import: /v1/imports/{id}', schema: { type: 'string' } },
  };
  const results = document.paths['/v1/imports/{id}/results'].get!;
  const ok = results.responses['200'] as ResponseObject;
  ok.description = `A page of results; with \`Accept: ${NDJSON}\`, every result as NDJSON, without envelope.`;
  ok.content![NDJSON] = {
    schema: { type: 'string', description: 'one `ImportResult` JSON object per line' },
  };
}

/** Kept though nothing in the document references them: the union a webhook receiver parses. */
const PUBLISHED_SCHEMAS = ['WebhookPayload'];

/** Drops what nothing references any more (EventResponse, replaced by the `Event` union). */
function dropUnreferenced(document: OpenAPIObject): void {
  const schemas = document.components!.schemas!;
  const used = new Set<string>();
  const follow = (node: unknown) =>
    visit(node, (value) => {
      const name = typeof value.$ref === 'string' ? value.$ref.split('/').pop()! : undefined;
      if (name && !used.has(name)) {
        used.add(name);
        follow(schemas[name]);
      }
    });
  follow({
    paths: document.paths,
    webhooks: document['x-webhooks' as keyof OpenAPIObject],
    published: PUBLISHED_SCHEMAS.map(ref),
  });
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}

const sortedKeys = <T>(record: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));

/**
 * The document as the service answers: decorators and DTOs give routes, parameters and
 * resources; this adds the envelopes, each operation's statuses and names, the event unions
 * and the webhook deliveries. Needs only the controllers' metadata, no connection.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Listings Service API')
    .setDescription(DESCRIPTION)
    .setVersion('1')
    .addServer('/')
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      description: 'API key: svc_live_… or svc_test_…',
    })
    .build();
  const document = SwaggerModule.createDocument(app, config, { extraModels: MODELS });
  // Keys are opaque strings, not JWTs; the service is not published under an open licence.
  delete (document.components!.securitySchemes!.bearer as { bearerFormat?: string }).bearerFormat;
  document.info = { ...document.info, contact: undefined, license: { name: 'Proprietary' } };
  renameSchemas(document);
  const dataSchemas = Object.fromEntries(
    Object.entries(EVENT_DATA_SCHEMAS).map(([event, model]) => [event, schemaName(model.name)]),
  ) as Record<EventName, string>;
  document.components!.schemas = {
    ...document.components!.schemas,
    ...STATIC_SCHEMAS,
    ...eventSchemas(dataSchemas),
  };
  describeOperations(document);
  describeBodies(document);
  describeResponseHeaders(document);
  integersAsIntegers(document);
  nullableReferences(document);
  nullableEnums(document);
  Object.assign(document, { 'x-webhooks': webhookOperations() });
  dropUnreferenced(document);
  document.components!.schemas = sortedKeys(document.components!.schemas!);
  return document;
}
