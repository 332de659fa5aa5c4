import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { EVENT_FIELDS } from '../../src/events/event-types';
import { DOCUMENT_FILE } from '../support/contract';

const ROOT = join(__dirname, '../..');
/** Nothing listens there: the export must not try to connect. */
const UNREACHABLE = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:1/unreachable',
  REDIS_URL: 'redis://127.0.0.1:1',
};

interface Operation {
  operationId?: string;
  summary?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: { type?: string } }[];
  responses: Record<string, unknown>;
}

const committed = () => readFileSync(DOCUMENT_FILE, 'utf8');
const document = () => JSON.parse(committed());

function operations(): [string, Operation][] {
  return Object.entries(document().paths as Record<string, Record<string, Operation>>).flatMap(
    ([path, item]) =>
      Object.entries(item).map(([method, op]): [string, Operation] => [`${method} ${path}`, op]),
  );
}

describe('OpenAPI document (openapi/openapi.json)', () => {
  it('is what the build exports, with PostgreSQL and Redis unreachable', () => {
    const result = spawnSync(process.execPath, ['dist/openapi/export.js'], {
      cwd: ROOT,
      env: { ...process.env, ...UNREACHABLE },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    if (result.stdout !== committed())
      throw new Error(
        'openapi/openapi.json is out of date: run npm run openapi:export and commit it',
      );
  });

  it('names every operation once, readably, with a summary', () => {
    const ids = operations().map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [key, op] of operations()) {
      expect({ key, id: op.operationId }).toEqual({
        key,
        id: expect.stringMatching(/^[a-z][A-Za-z]+$/),
      });
      expect({ key, summary: op.summary }).toEqual({ key, summary: expect.any(String) });
    }
    expect(document().paths['/v1/listings'].post.operationId).toBe('createListing');
    expect(document().paths['/v1/listings'].get.operationId).toBe('listListings');
  });

  it('marks defaulted query parameters optional and integers as integers', () => {
    const list = document().paths['/v1/listings'].get as Operation;
    for (const name of ['page', 'limit']) {
      const parameter = list.parameters!.find((p) => p.name === name)!;
      expect(parameter).toMatchObject({ required: false, schema: { type: 'integer' } });
    }
    expect(document().components.schemas.Listing.properties.price.type).toBe('integer');
    expect(JSON.stringify(document())).not.toContain('"type":"number"');
  });

  it('documents the upsert 201 and 200, the import 202, 500 everywhere and no 401 on public routes', () => {
    const paths = document().paths;
    expect(Object.keys(paths['/v1/listings/by-external-id/{externalId}'].put.responses)).toEqual([
      '200',
      '201',
      '400',
      '401',
      '403',
      '429',
      '500',
    ]);
    expect(paths['/v1/listings/{id}'].get.responses['404']).toBeDefined();
    expect(paths['/v1/imports'].post.responses['202']).toBeDefined();
    expect(paths['/health/live'].get.security).toEqual([]);
    expect(paths['/health/live'].get.responses['401']).toBeUndefined();
    expect(paths['/health/live'].get.responses['500']).toBeDefined();
  });

  it('has one event schema per event, each item matching exactly one branch of the union', () => {
    const doc = document();
    // Without the discriminator, oneOf itself must hold: exactly one branch per event name.
    const ajv = new Ajv({ strict: false });
    addFormats(ajv);
    ajv.addSchema(doc, 'openapi.json');
    const validate = ajv.compile({ $ref: 'openapi.json#/components/schemas/Event' });
    const updated = {
      id: '2f1c1d4e-52ad-4c6f-9d7e-5b2f0f7f4c11',
      event: 'listing.updated',
      timestamp: '2026-11-25T10:00:00.000Z',
      livemode: true,
      data: {
        id: '3a1c1d4e-52ad-4c6f-9d7e-5b2f0f7f4c11',
        externalId: null,
        livemode: true,
        status: 'ACTIVE',
        updatedAt: '2026-11-25T10:00:00.000Z',
        changedFields: ['price'],
      },
    };
    expect(validate(updated)).toBe(true);
    expect(validate({ ...updated, event: 'listing.sold' })).toBe(false);
    expect(Object.keys(doc.components.schemas.Event.discriminator.mapping).sort()).toEqual(
      Object.keys(EVENT_FIELDS).sort(),
    );
  });

  it("describes each event's data as the service sends it: every field, always present, null only where allowed", () => {
    const schemas = document().components.schemas;
    const mapping: Record<string, string> = schemas.Event.discriminator.mapping;
    const byName = (ref: string) => schemas[ref.split('/').pop()!];
    for (const [event, fields] of Object.entries(EVENT_FIELDS)) {
      const data = byName(byName(mapping[event]).properties.data.$ref);
      const kinds = fields as Record<string, string>;
      expect({ event, fields: Object.keys(data.properties).sort() }).toEqual({
        event,
        fields: Object.keys(kinds).sort(),
      });
      expect({ event, required: [...data.required].sort() }).toEqual({
        event,
        required: Object.keys(kinds).sort(),
      });
      for (const [field, kind] of Object.entries(kinds))
        expect({ event, field, nullable: data.properties[field].nullable === true }).toEqual({
          event,
          field,
          nullable: kind === 'string?',
        });
    }
  });

  it('describes each webhook delivery with both signature schemes', () => {
    const webhooks = document()['x-webhooks'];
    expect(Object.keys(webhooks)).toEqual(
      expect.arrayContaining([
        'listing.created',
        'listing.updated',
        'import.finished',
        'webhook.test',
      ]),
    );
    const headers = (webhooks['listing.sold'].post.parameters as { name: string }[]).map(
      (p) => p.name,
    );
    expect(headers).toEqual(
      expect.arrayContaining([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
        'X-Service-Signature',
        'X-Service-Timestamp',
        'X-Service-Delivery',
        'X-Service-Event',
      ]),
    );
  });
});
