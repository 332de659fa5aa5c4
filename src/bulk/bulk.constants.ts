/** What each endpoint counts as done, named as its result field. */
export type BulkVerb = 'created' | 'updated' | 'deleted' | 'sold' | 'renewed';
