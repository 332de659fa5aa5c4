import { BulkResult } from './bulk-result.response';

export class BulkCreateResponse extends BulkResult {
  /** listings created */
  created: number;
}
