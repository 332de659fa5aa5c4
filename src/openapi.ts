import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ErrorCode } from './common/errors/error-code';
import { EVENT_DATA_SCHEMAS, WebhookDeliveryPayload } from './events/dto/event-payloads.response';

const ENVELOPE_SCHEMAS: Record<string, SchemaObject> = {
  Meta: {
    type: 'object',
    required: ['requestId', 'timestamp'],
    properties: {
      requestId: { type: 'string' },
      timestamp: { type: 'string', format: 'date-time' },
    },
  },
  Pagination: {
    type: 'object',
    required: ['page', 'limit', 'total', 'pages', 'hasMore'],
    properties: {
      page: { type: 'integer' },
      limit: { type: 'integer' },
      total: { type: 'integer' },
      pages: { type: 'integer' },
      hasMore: { type: 'boolean' },
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
            items: {
              type: 'object',
              required: ['field', 'message'],
              properties: { field: { type: 'string' }, message: { type: 'string' } },
            },
          },
        },
      },
      meta: { $ref: '#/components/schemas/Meta' },
    },
  },
};

const ERROR_RESPONSES: Record<string, string> = {
  '400': 'VALIDATION_ERROR: invalid input; `details` names each field',
  '401': 'UNAUTHORIZED: missing, malformed, unknown or revoked API key',
  '403': 'FORBIDDEN: account not approved, or key without the scope',
  '404': 'NOT_FOUND',
  '429': 'RATE_LIMITED: wait `Retry-After` seconds',
  '500': 'SERVER_ERROR',
};

/** Adds what decorators cannot say: the envelope around every answer, the spec's error codes. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Listings Service API')
    .setDescription(
      'Create, manage and synchronise classified listings. Every response is an envelope ' +
        '`{success, data | error, meta}`; lists add `pagination`. The schemas below show `data`.',
    )
    .setVersion('1')
    .addServer('/')
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      description: 'API key: svc_live_… or svc_test_…',
    })
    .build();
  // Event payloads appear in no route's answer shape directly: listed so that each has a schema.
  const document = SwaggerModule.createDocument(app, config, {
    extraModels: [...Object.values(EVENT_DATA_SCHEMAS), WebhookDeliveryPayload],
  });
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...ENVELOPE_SCHEMAS },
  };
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem) as { responses?: Record<string, unknown> }[]) {
      if (!operation || typeof operation !== 'object' || !('responses' in operation)) continue;
      for (const [status, description] of Object.entries(ERROR_RESPONSES)) {
        operation.responses![status] ??= {
          description,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } },
          },
        };
      }
    }
  }
  return document;
}
