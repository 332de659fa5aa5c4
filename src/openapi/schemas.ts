import type {
  ParameterObject,
  PathItemObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ErrorCode } from '../common/errors/error-code';
import { EVENT_NAMES, EventName } from '../events/event-types';
import { TEST_EVENT } from '../webhooks/deliveries/delivery-payload';

/** The schemas that no DTO class describes: envelopes, reference data, health, event unions. */

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const META: SchemaObject = {
  type: 'object',
  required: ['requestId', 'timestamp'],
  properties: {
    requestId: { type: 'string', description: 'also sent as the `X-Request-Id` header' },
    timestamp: { type: 'string', format: 'date-time' },
  },
};

/** Every answer but a download is one of these envelopes; operations add `data`'s schema with allOf. */
const ENVELOPES: Record<string, SchemaObject> = {
  Meta: META,
  Pagination: {
    type: 'object',
    required: ['page', 'limit', 'total', 'pages', 'hasMore'],
    properties: {
      page: { type: 'integer', minimum: 1 },
      limit: { type: 'integer', minimum: 1 },
      total: { type: 'integer', minimum: 0 },
      pages: { type: 'integer', minimum: 0 },
      hasMore: { type: 'boolean' },
    },
  },
  CursorPagination: {
    type: 'object',
    required: ['limit', 'hasMore', 'nextCursor'],
    properties: {
      limit: { type: 'integer', minimum: 1 },
      hasMore: { type: 'boolean' },
      nextCursor: {
        type: 'string',
        nullable: true,
        description: 'pass as `after` for the next page; null when the page is empty',
      },
    },
  },
  SuccessEnvelope: {
    type: 'object',
    description: 'A success answer: each operation gives the schema of `data`.',
    required: ['success', 'data', 'meta'],
    properties: { success: { type: 'boolean', enum: [true] }, data: {}, meta: ref('Meta') },
  },
  PageEnvelope: {
    type: 'object',
    description: 'A page of a list: `data` is an array, `pagination` counts pages.',
    required: ['success', 'data', 'pagination', 'meta'],
    properties: {
      success: { type: 'boolean', enum: [true] },
      data: { type: 'array', items: {} },
      pagination: ref('Pagination'),
      meta: ref('Meta'),
    },
  },
  CursorPageEnvelope: {
    type: 'object',
    description: 'A page of a cursor feed: continue with `after` = `pagination.nextCursor`.',
    required: ['success', 'data', 'pagination', 'meta'],
    properties: {
      success: { type: 'boolean', enum: [true] },
      data: { type: 'array', items: {} },
      pagination: ref('CursorPagination'),
      meta: ref('Meta'),
    },
  },
  ErrorEnvelope: {
    type: 'object',
    required: ['success', 'error', 'meta'],
    properties: {
      success: { type: 'boolean', enum: [false] },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', enum: Object.values(ErrorCode) },
          message: { type: 'string' },
          details: {
            type: 'array',
            description: 'one entry per field at fault (at most 50), `field` a stable path',
            items: {
              type: 'object',
              required: ['field', 'message'],
              properties: { field: { type: 'string' }, message: { type: 'string' } },
            },
          },
        },
      },
      meta: ref('Meta'),
    },
  },
};

const REFERENCE_DATA: Record<string, SchemaObject> = {
  CategoryAttribute: {
    type: 'object',
    required: ['key', 'label', 'type', 'required'],
    properties: {
      key: { type: 'string', description: "the key in a listing's `attributes`" },
      label: { type: 'string' },
      type: { type: 'string', enum: ['string', 'integer', 'boolean', 'enum'] },
      required: { type: 'boolean' },
      values: { type: 'array', items: { type: 'string' }, description: 'type enum only' },
      min: { type: 'integer', description: 'type integer only, inclusive' },
      max: { type: 'integer', description: 'type integer only, inclusive' },
      maxLength: { type: 'integer', description: 'type string only' },
      unit: { type: 'string' },
    },
  },
  Category: {
    type: 'object',
    required: ['slug', 'name', 'isLeaf', 'attributes', 'children'],
    properties: {
      slug: { type: 'string' },
      name: { type: 'string' },
      isLeaf: { type: 'boolean', description: 'listings take leaf categories only' },
      attributes: { type: 'array', items: ref('CategoryAttribute') },
      children: { type: 'array', items: ref('Category') },
    },
  },
  Kommun: {
    type: 'object',
    required: ['code', 'slug', 'name'],
    properties: { code: { type: 'string' }, slug: { type: 'string' }, name: { type: 'string' } },
  },
  Location: {
    type: 'object',
    required: ['code', 'slug', 'name', 'kommuner'],
    properties: {
      code: { type: 'string' },
      slug: { type: 'string' },
      name: { type: 'string' },
      kommuner: { type: 'array', items: ref('Kommun') },
    },
  },
};

const HEALTH: Record<string, SchemaObject> = {
  Liveness: {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'string', enum: ['ok'] } },
  },
  Readiness: {
    type: 'object',
    description: 'Each check (process, database, reads, redis) by name.',
    required: ['status', 'details'],
    properties: {
      status: { type: 'string' },
      info: { type: 'object', additionalProperties: true },
      error: { type: 'object', additionalProperties: true },
      details: { type: 'object', additionalProperties: true },
    },
  },
};

/** `listing.created` → `ListingCreated`: the stem of each event's schema names. */
export function eventStem(event: string): string {
  return event
    .split(/[._]/)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('');
}

const eventConst = (event: string): SchemaObject => ({ type: 'string', enum: [event] });

/**
 * One schema per event name for the feed (`<Stem>Event`) and for webhook bodies
 * (`<Stem>Webhook`), each with `event` as a one-value enum, and the unions `Event` and
 * `WebhookPayload` discriminated on `event`: every item matches exactly one branch.
 * `dataSchemas` names each event's `data` schema.
 */
export function eventSchemas(dataSchemas: Record<EventName, string>): Record<string, SchemaObject> {
  const schemas: Record<string, SchemaObject> = {
    WebhookTestData: {
      type: 'object',
      description: '`webhook.test`: the endpoint, not a listing',
      required: ['id', 'externalId', 'livemode'],
      properties: {
        id: { type: 'string', format: 'uuid', description: "the endpoint's id" },
        externalId: { type: 'string', nullable: true, enum: [null] },
        livemode: { type: 'boolean' },
      },
    },
  };
  const union = (suffix: string, events: readonly string[]): SchemaObject => ({
    oneOf: events.map((event) => ref(eventStem(event) + suffix)),
    discriminator: {
      propertyName: 'event',
      mapping: Object.fromEntries(
        events.map((event) => [event, `#/components/schemas/${eventStem(event)}${suffix}`]),
      ),
    },
  });
  const dataOf = (event: string) =>
    event === TEST_EVENT ? 'WebhookTestData' : dataSchemas[event as EventName];
  for (const event of EVENT_NAMES) {
    schemas[`${eventStem(event)}Event`] = {
      type: 'object',
      description: `\`${event}\` in the event feed`,
      required: ['id', 'event', 'timestamp', 'livemode', 'data'],
      properties: {
        id: { type: 'string', format: 'uuid', description: "equals the deliveries' `eventId`" },
        event: eventConst(event),
        timestamp: { type: 'string', format: 'date-time' },
        livemode: { type: 'boolean' },
        data: ref(dataOf(event)),
      },
    };
  }
  const webhookEvents = [...EVENT_NAMES, TEST_EVENT];
  for (const event of webhookEvents) {
    schemas[`${eventStem(event)}Webhook`] = {
      type: 'object',
      description: `The body of a \`${event}\` delivery`,
      required: ['event', 'eventId', 'deliveryId', 'timestamp', 'data'],
      properties: {
        event: eventConst(event),
        eventId:
          event === TEST_EVENT
            ? { type: 'string', nullable: true, enum: [null] }
            : {
                type: 'string',
                format: 'uuid',
                description: 'the id of the event in GET /v1/events',
              },
        deliveryId: {
          type: 'string',
          format: 'uuid',
          description: 'the same on every attempt; also in `webhook-id` and `X-Service-Delivery`',
        },
        timestamp: { type: 'string', format: 'date-time', description: 'when the event happened' },
        data: ref(dataOf(event)),
      },
    };
  }
  schemas.Event = union('Event', EVENT_NAMES);
  schemas.WebhookPayload = union('Webhook', webhookEvents);
  return schemas;
}

const header = (name: string, description: string, example?: string): ParameterObject => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
  ...(example ? { example } : {}),
});

/** Sent with every delivery: the service's own scheme and Standard Webhooks', same id and time. */
const DELIVERY_HEADERS: ParameterObject[] = [
  header('X-Service-Event', 'the event name, as in the body'),
  header('X-Service-Delivery', 'the delivery id, the same on every attempt'),
  header('X-Service-Timestamp', 'Unix seconds of this attempt', '1764110400'),
  header(
    'X-Service-Signature',
    '`sha256=` + hex HMAC-SHA256 of `"<X-Service-Timestamp>.<raw body>"` keyed with the ' +
      'endpoint secret; during a rotation one per live secret, newest first, comma-separated',
    'sha256=5f2b…',
  ),
  header('webhook-id', 'Standard Webhooks: the delivery id (equals X-Service-Delivery)'),
  header('webhook-timestamp', 'Standard Webhooks: Unix seconds (equals X-Service-Timestamp)'),
  header(
    'webhook-signature',
    'Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `"<webhook-id>.<webhook-timestamp>.<raw ' +
      'body>"` keyed with the base64-decoded secret after `whsec_`; during a rotation one per ' +
      'live secret, space-separated',
    'v1,K5oZ…',
  ),
];

/** `x-webhooks` (OpenAPI 3.0): what the service POSTs to an endpoint, one entry per event. */
export function webhookOperations(): Record<string, PathItemObject> {
  return Object.fromEntries(
    [...EVENT_NAMES, TEST_EVENT].map((event) => [
      event,
      {
        post: {
          operationId: `on${eventStem(event)}`,
          summary: `\`${event}\` delivered to a webhook endpoint`,
          description:
            'Verify a signature over the raw body before parsing it; reject a timestamp more ' +
            'than 5 minutes away. Retries keep the delivery id: deduplicate on it.',
          tags: ['webhooks'],
          security: [],
          parameters: DELIVERY_HEADERS,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref(`${eventStem(event)}Webhook`) } },
          },
          responses: {
            '2XX': { description: 'Received: any 2xx within the time-out ends the retries.' },
            default: { description: 'Anything else, or no answer, is retried with backoff.' },
          },
        },
      },
    ]),
  );
}

export const STATIC_SCHEMAS: Record<string, SchemaObject> = {
  ...ENVELOPES,
  ...REFERENCE_DATA,
  ...HEALTH,
};
