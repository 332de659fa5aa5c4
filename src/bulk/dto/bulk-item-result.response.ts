import { ErrorCode } from '../../common/errors/error-code';

class BulkItemData {
  /** the listing's id */
  id: string;
}

class BulkItemFieldError {
  field: string;
  message: string;
}

class BulkItemError {
  /** the code the same change made by a single request would answer with */
  code: ErrorCode;
  message: string;
  /** for VALIDATION_ERROR: the fields, named as in the single request (no `items[i].` prefix) */
  details?: BulkItemFieldError[];
}

/** The outcome of one item; `data` when it succeeded, `error` when it failed. */
export class BulkItemResult {
  /** the item's position in the request, from 0 */
  index: number;
  success: boolean;
  data?: BulkItemData;
  error?: BulkItemError;
}
