import { BulkResult } from './bulk-result.response';

export class BulkSoldResponse extends BulkResult {
  /** listings now SOLD */
  sold: number;
}
