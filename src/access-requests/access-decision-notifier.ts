import type { EntityManager } from 'typeorm';
import type { AccessRequest } from './access-request';

/** A decision as the account's owners are told of it. */
export interface AccessDecisionNotice {
  accountId: string;
  decision: 'approved' | 'rejected';
  /** the decided request; null when staff approved the account without one */
  request: AccessRequest | null;
}

/**
 * A port: told of every access decision, whichever door made it (admin API, CLI), in the
 * decision's own transaction. The dashboard provides it (mail to the account's owners).
 */
export abstract class AccessDecisionNotifier {
  abstract decided(em: EntityManager, notice: AccessDecisionNotice): Promise<void>;
}
