import { createHash } from 'node:crypto';

/**
 * Bump when what makes a line valid changes in code (a new rule, a different normalisation):
 * every stored hash then misses once, and those lines are validated and compared again.
 */
const LINE_RULES_VERSION = '1';

/**
 * The hash an import stores with a listing its line wrote, and compares the next import's line
 * with: the line as read (a line is the same only if it reads the same, field order included),
 * under the validation rules and reference data it was valid under.
 */
export function lineHash(referenceDigest: string, body: Record<string, unknown>): Buffer {
  return createHash('sha256')
    .update(`${LINE_RULES_VERSION}\n${referenceDigest}\n`)
    .update(JSON.stringify(body))
    .digest();
}
