import { BulkResult } from './bulk-result.response';

export class BulkRenewResponse extends BulkResult {
  /** listings renewed: ACTIVE, with 30 more days */
  renewed: number;
}
