import type { OpenAPIObject } from '@nestjs/swagger';
import type {
  HeaderObject,
  OperationObject,
  ParameterObject,
  ResponseObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

const integer = (description: string): HeaderObject => ({
  description,
  schema: { type: 'integer' },
});
const text = (description: string): HeaderObject => ({ description, schema: { type: 'string' } });

/** The headers the service sets on its answers (see docs/api.md, "Rate limits" and "Idempotency"). */
const HEADERS: Record<string, HeaderObject> = {
  'X-Request-Id': text(
    "the request's id, also in `meta.requestId`: yours when you sent a safe `X-Request-Id`",
  ),
  'X-RateLimit-Limit': integer("requests allowed per window for this key and the request's class"),
  'X-RateLimit-Remaining': integer('requests left in the window after this one'),
  'X-RateLimit-Reset': integer('seconds until the window frees a request'),
  RateLimit: text('the same as `limit=…, remaining=…, reset=…` (IETF draft 07 syntax)'),
  'RateLimit-Policy': text('`<limit>;w=<window seconds>`'),
  'Idempotent-Replayed': text(
    '`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`',
  ),
};

const RATE_LIMIT = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
];

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

const takesIdempotencyKey = (operation: OperationObject) =>
  ((operation.parameters ?? []) as ParameterObject[]).some(
    (p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key',
  );

/**
 * Names on each response the headers it may carry: every answer its request id; an
 * authenticated operation's answers to an accepted key (all but 401) the rate-limit state;
 * the answers an Idempotency-Key keeps (a success, or a 400 reached while executing) whether
 * this one was replayed.
 */
export function describeResponseHeaders(document: OpenAPIObject): void {
  document.components = { ...document.components, headers: HEADERS };
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'patch', 'delete'] as const) {
      const operation = item[method];
      if (!operation) continue;
      const limited = (operation.security?.length ?? 0) > 0;
      for (const [status, response] of Object.entries(operation.responses)) {
        const code = Number(status);
        const names = ['X-Request-Id'];
        if (limited && code !== 401) names.push(...RATE_LIMIT);
        if (takesIdempotencyKey(operation) && (code < 300 || code === 400))
          names.push('Idempotent-Replayed');
        const answer = response as ResponseObject;
        answer.headers = {
          ...Object.fromEntries(names.map((name) => [name, headerRef(name)])),
          ...answer.headers,
        };
      }
    }
  }
}
