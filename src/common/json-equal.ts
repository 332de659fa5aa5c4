import { isDeepStrictEqual } from 'node:util';

/** Equality of JSON values, ignoring object key order (arrays stay ordered). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b);
}
