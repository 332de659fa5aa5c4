import type { EntityManager } from 'typeorm';

/** What the account's owners are told of a new live key: never the key itself. */
export interface LiveKeyNotice {
  accountId: string;
  keyId: string;
  name: string;
  createdAt: Date;
  /** 'created' or 'rolled' (a roll makes a new key too) */
  how: 'created' | 'rolled';
}

/**
 * A port: told of every new live key, whichever door made it, in the key's own transaction.
 * The dashboard provides it (mail to the account's owners); without it nobody is told.
 */
export abstract class LiveKeyNotifier {
  abstract liveKeyCreated(em: EntityManager, notice: LiveKeyNotice): Promise<void>;
}
