/** The spec's limit: items per bulk request (rule 11). */
export const BULK_MAX_ITEMS = 50;

/** What each endpoint counts as done, named as its result field. */
export type BulkVerb = 'created' | 'updated' | 'deleted' | 'sold';
