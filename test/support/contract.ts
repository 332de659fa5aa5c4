import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { NextFunction, Request, Response } from 'express';

/**
 * The contract check: every answer of an app under test (createTestApp) is validated against the
 * committed OpenAPI document, openapi/openapi.json (the drift spec keeps that file equal to what
 * the service builds). An undocumented operation, status or content type, or a JSON body that does
 * not match its schema, is a violation; the e2e tier's afterEach fails the test with them.
 */

export const DOCUMENT_FILE = join(__dirname, '../../openapi/openapi.json');

/**
 * Served outside the document on purpose: admin API, queue dashboard, metrics, media, docs, test
 * probes, and the account dashboard (HTML).
 */
const UNDOCUMENTED = /^\/(v1\/admin|v1\/probe|admin\/queues|metrics|media|docs|dashboard)(\/|-|$)/;

const ERROR_ENVELOPE = '/components/schemas/ErrorEnvelope';
const UNROUTED_STATUSES = [400, 401, 404, 429];

interface Operation {
  pattern: RegExp;
  /** literal segments win over parameters: /listings/bulk before /listings/{id} */
  params: number;
  method: string;
  template: string;
  responses: Record<
    string,
    { content?: Record<string, unknown>; headers?: Record<string, unknown> }
  >;
}

interface Contract {
  operations: Operation[];
  /** x-webhooks: each event's delivery, with its required headers */
  webhooks: Record<string, { post: { parameters: { name: string; required?: boolean }[] } }>;
  /** components.headers: the headers the service documents, lower-cased */
  headers: string[];
  validatorFor: (pointer: string) => ValidateFunction;
}

let contract: Contract | undefined;

function dropMappings(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  const record = node as { discriminator?: { mapping?: unknown } };
  if (record.discriminator) delete record.discriminator.mapping;
  Object.values(node).forEach(dropMappings);
}

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

function load(): Contract {
  const document = JSON.parse(readFileSync(DOCUMENT_FILE, 'utf8'));
  // Ajv's discriminator takes the branch from each branch's one-value `event` enum and refuses
  // `mapping`, which says the same for code generators.
  dropMappings(document);
  const ajv = new Ajv({ strict: false, discriminator: true, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addSchema(document, 'openapi.json');
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries<Record<string, Operation['responses']>>(
    document.paths,
  )) {
    for (const [method, operation] of Object.entries(item)) {
      const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      operations.push({
        pattern: new RegExp(`^${source}/?$`),
        params: (template.match(/\{/g) ?? []).length,
        method: method.toUpperCase(),
        template,
        responses: (operation as unknown as { responses: Operation['responses'] }).responses,
      });
    }
  }
  operations.sort((a, b) => a.params - b.params);
  const validators = new Map<string, ValidateFunction>();
  return {
    operations,
    webhooks: document['x-webhooks'],
    headers: Object.keys(document.components.headers ?? {}).map((name) => name.toLowerCase()),
    validatorFor: (pointer) => {
      let validate = validators.get(pointer);
      if (!validate) {
        validate = ajv.compile({ $ref: `openapi.json#${pointer}` });
        validators.set(pointer, validate);
      }
      return validate;
    },
  };
}

const violations: string[] = [];

const ajvErrors = (validate: ValidateFunction) =>
  (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`)
    .join('; ');

/** While above 0, a 500 in the error envelope is what the test provokes, not a violation. */
let provokedFaults = 0;

/** Runs `fn`, which injects a fault on purpose: its 500s are expected (still in the envelope). */
export async function whileProvokingServerErrors(fn: () => Promise<void>): Promise<void> {
  provokedFaults += 1;
  try {
    await fn();
  } finally {
    provokedFaults -= 1;
  }
}

/** Every violation since the last call, emptied. */
export function takeContractViolations(): string[] {
  return violations.splice(0);
}

function check(
  method: string,
  path: string,
  status: number,
  type: string,
  body: Buffer,
  sentHeaders: string[],
): void {
  contract ??= load();
  const where = `${method} ${path} → ${status}`;
  const operation = contract.operations.find((o) => o.method === method && o.pattern.test(path));
  if (!operation) {
    // An unknown route or method answers 404 in the error envelope, or first what is checked
    // before routing under /v1: the key (401), the rate limit (429), the body's type (400).
    if (UNROUTED_STATUSES.includes(status) && type === 'application/json') {
      const validate = contract.validatorFor(ERROR_ENVELOPE);
      if (validate(JSON.parse(body.toString('utf8')))) return;
    }
    violations.push(`${where}: no operation ${method} matches ${path} in the document`);
    return;
  }
  const provoked = status === 500 && provokedFaults > 0;
  const response = provoked
    ? { content: { 'application/json': ERROR_ENVELOPE } }
    : operation.responses[String(status)];
  if (!response) {
    violations.push(
      `${where}: status ${status} is not documented for ${method} ${operation.template}`,
    );
    return;
  }
  // A documented header the answer carries must be documented on that answer.
  const declared = Object.keys(response.headers ?? {}).map((name) => name.toLowerCase());
  const undeclared = sentHeaders.filter(
    (h) => contract!.headers.includes(h) && !declared.includes(h),
  );
  if (!provoked && undeclared.length > 0)
    violations.push(`${where}: headers not documented on this answer: ${undeclared.join(', ')}`);
  if (!response.content) {
    if (body.length > 0) violations.push(`${where}: documented without a body, sent one (${type})`);
    return;
  }
  if (!(type in response.content)) {
    violations.push(`${where}: content type ${type || '(none)'} is not documented`);
    return;
  }
  if (type !== 'application/json') return;
  const pointer = provoked
    ? ERROR_ENVELOPE
    : `/${['paths', operation.template, method.toLowerCase(), 'responses', String(status), 'content', type, 'schema'].map(escapePointer).join('/')}`;
  const validate = contract.validatorFor(pointer);
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    violations.push(`${where}: the body is not JSON`);
    return;
  }
  if (!validate(json)) {
    violations.push(`${where}: body does not match the document: ${ajvErrors(validate)}`);
  }
}

/**
 * A webhook delivery as a test receiver got it (test/support/webhook-receiver.ts): the headers
 * and body that x-webhooks promises for its event.
 */
export function checkDelivery(headers: Record<string, unknown>, rawBody: string): void {
  contract ??= load();
  let body: { event?: string };
  try {
    body = JSON.parse(rawBody);
  } catch {
    violations.push(`webhook delivery: the body is not JSON`);
    return;
  }
  const where = `webhook delivery ${body.event} (${String(headers['webhook-id'])})`;
  const delivery = contract.webhooks[body.event ?? ''];
  if (!delivery) {
    violations.push(`${where}: no x-webhooks entry for this event`);
    return;
  }
  const missing = delivery.post.parameters
    .filter((p) => p.required && headers[p.name.toLowerCase()] === undefined)
    .map((p) => p.name);
  if (missing.length > 0) violations.push(`${where}: headers missing: ${missing.join(', ')}`);
  const pointer = [
    'x-webhooks',
    body.event!,
    'post',
    'requestBody',
    'content',
    'application/json',
    'schema',
  ]
    .map(escapePointer)
    .join('/');
  const validate = contract.validatorFor(`/${pointer}`);
  if (!validate(body))
    violations.push(`${where}: body does not match the document: ${ajvErrors(validate)}`);
}

/** Express middleware, first in the chain: records each answer's body and checks it when sent. */
export function contractRecorder(req: Request, res: Response, next: NextFunction): void {
  const path = req.originalUrl.split('?')[0];
  if (UNDOCUMENTED.test(path)) return next();
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown, encoding?: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    chunks.push(
      Buffer.isBuffer(chunk)
        ? chunk
        : Buffer.from(
            chunk as string,
            typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8',
          ),
    );
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.write = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return write(...args);
  }) as Response['write'];
  res.end = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return end(...args);
  }) as Response['end'];
  res.on('finish', () => {
    const type = String(res.getHeader('content-type') ?? '')
      .split(';')[0]
      .trim();
    try {
      check(
        req.method,
        path,
        res.statusCode,
        type,
        req.method === 'HEAD' ? Buffer.alloc(0) : Buffer.concat(chunks),
        res.getHeaderNames(),
      );
    } catch (error) {
      violations.push(`${req.method} ${path}: the contract check failed: ${String(error)}`);
    }
  });
  next();
}
