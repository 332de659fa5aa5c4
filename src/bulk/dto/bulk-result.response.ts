import { BulkItemResult } from './bulk-item-result.response';

/** What every bulk endpoint answers; each adds the count of its own verb. */
export abstract class BulkResult {
  /** items in the request */
  total: number;
  /** items that failed; nothing of theirs was kept */
  failed: number;
  /** one entry per item, in request order */
  results: BulkItemResult[];
}
