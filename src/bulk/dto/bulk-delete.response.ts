import { BulkResult } from './bulk-result.response';

export class BulkDeleteResponse extends BulkResult {
  /** listings now REMOVED */
  deleted: number;
}
