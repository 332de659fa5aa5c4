import { createHash } from 'node:crypto';

/**
 * Bump when what makes a line valid changes in code (a new rule, a different normalisation):
 * every stored hash then misses once, and those lines are validated and compared again.
 */
const LINE_RULES_VERSION = '2';

/** A line hash's length: SHA-256. */
export const LINE_HASH_BYTES = 32;

/**
 * The hash an import stores with a listing its line wrote, and finds the next import's line by:
 * the line's content (FeedRecord.content: the same content always reads as the same body),
 * under the validation rules and reference data it was valid under. It covers the externalId, so
 * a hash found in the account names the listing.
 */
export function lineHash(referenceDigest: string, content: Buffer): Buffer {
  return createHash('sha256')
    .update(`${LINE_RULES_VERSION}\n${referenceDigest}\n`)
    .update(content)
    .digest();
}
