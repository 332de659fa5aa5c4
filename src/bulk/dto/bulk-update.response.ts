import { BulkResult } from './bulk-result.response';

export class BulkUpdateResponse extends BulkResult {
  /** listings updated (an item that changes nothing counts too) */
  updated: number;
}
