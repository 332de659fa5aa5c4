import { Injectable } from '@nestjs/common';
import { Every } from '../platform/scheduling/every.decorator';
import { inBatches } from '../platform/scheduling/in-batches';
import { MailOutboxStore } from './mail-outbox.store';

/**
 * How long the outbox keeps mail: it stands in for a mailbox where no SMTP server is set, and
 * every link it holds stopped working long before (7 days at most, an invitation's).
 */
export const MAIL_OUTBOX_RETENTION_MS = 30 * 24 * 60 * 60_000;

/** Kept mail goes after MAIL_OUTBOX_RETENTION_MS, in batches, on the retention purges' schedule. */
@Injectable()
export class MailOutboxRetention {
  constructor(private readonly store: MailOutboxStore) {}

  @Every('mail-outbox-purge', (config) => config.get('events.purgeEveryMs', { infer: true }))
  purge(stopping?: () => boolean): Promise<number> {
    const cutoff = new Date(Date.now() - MAIL_OUTBOX_RETENTION_MS);
    return inBatches((n) => this.store.purgeBefore(cutoff, n), stopping);
  }
}
