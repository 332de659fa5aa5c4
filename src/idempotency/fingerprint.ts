import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so two equal bodies always give the same text. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** Identifies a request: the operation plus its (validated) body, key order ignored. */
export function requestFingerprint(operation: string, body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([operation, canonical(body)]))
    .digest('hex');
}
