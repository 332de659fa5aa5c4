import {
  MailOutboxRetention,
  MAIL_OUTBOX_RETENTION_MS,
} from '../../src/mail/mail-outbox-retention';
import { MailOutboxStore } from '../../src/mail/mail-outbox.store';
import { MailModule } from '../../src/mail/mail.module';
import { createIntegrationContext, IntegrationContext } from '../support/integration';

/** The mail outbox against the real database: kept mail goes after its retention, nothing newer. */
describe('MailOutboxRetention', () => {
  let ctx: IntegrationContext;

  beforeAll(async () => {
    ctx = await createIntegrationContext({ imports: [MailModule] });
  });
  afterAll(() => ctx?.close());

  it('purges mail kept longer than the retention, in batches, and keeps the rest', async () => {
    const store = ctx.get(MailOutboxStore);
    await ctx.dataSource.query(
      `INSERT INTO mail_outbox (to_address, subject, body_text, created_at)
       SELECT 'old-' || g || '@example.se', 'Gammal', 'text', now() - $1 * interval '1 millisecond' - interval '1 hour'
       FROM generate_series(1, 2500) AS g`,
      [MAIL_OUTBOX_RETENTION_MS],
    );
    await ctx.dataSource.query(
      `INSERT INTO mail_outbox (to_address, subject, body_text, created_at)
       VALUES ('kept@example.se', 'Nästan gammal', 'text', now() - $1 * interval '1 millisecond' + interval '1 hour'),
              ('new@example.se', 'Ny', 'text', now())`,
      [MAIL_OUTBOX_RETENTION_MS],
    );
    expect(await ctx.get(MailOutboxRetention).purge()).toBe(2500);
    const left = await store.list({ limit: 10 });
    expect(left.map((m) => m.to).sort()).toEqual(['kept@example.se', 'new@example.se']);
  });
});
