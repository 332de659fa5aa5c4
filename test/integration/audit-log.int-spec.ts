import { AuditModule } from '../../src/audit/audit.module';
import { AuditService } from '../../src/audit/audit.service';
import { AuditStore } from '../../src/audit/audit.store';
import { createIntegrationContext, IntegrationContext } from '../support/integration';

/** The audit log against the real database: written in the caller's transaction, append-only, paged, purged. */
describe('AuditService and AuditStore', () => {
  let ctx: IntegrationContext;
  let audit: AuditService;
  let store: AuditStore;

  beforeAll(async () => {
    ctx = await createIntegrationContext({ imports: [AuditModule] });
    audit = ctx.get(AuditService);
    store = ctx.get(AuditStore);
  });
  afterAll(() => ctx?.close());

  it('writes a row only when the action’s transaction commits', async () => {
    const { accountId } = await ctx.newOwner();
    await expect(
      ctx.dataSource.transaction(async (em) => {
        await audit.record(em, {
          accountId,
          actor: { type: 'admin' },
          action: 'access.approved',
        });
        throw new Error('the action failed');
      }),
    ).rejects.toThrow('the action failed');
    expect((await audit.page(accountId, 10)).items).toEqual([]);

    await ctx.dataSource.transaction((em) =>
      audit.record(em, {
        accountId,
        actor: { type: 'user', id: 'u-1' },
        action: 'key.created',
        target: 'key-1',
        ip: '192.0.2.1',
        userAgent: 'test',
        details: { kind: 'test' },
      }),
    );
    const { items } = await audit.page(accountId, 10);
    expect(items).toEqual([
      expect.objectContaining({
        accountId,
        actorType: 'user',
        actorId: 'u-1',
        action: 'key.created',
        target: 'key-1',
        ip: '192.0.2.1',
        userAgent: 'test',
        details: { kind: 'test' },
      }),
    ]);
  });

  it('refuses to change a row: the log is append-only', async () => {
    const { accountId } = await ctx.newOwner();
    await ctx.dataSource.transaction((em) =>
      audit.record(em, { accountId, actor: { type: 'cli' }, action: 'key.revoked' }),
    );
    await expect(
      ctx.dataSource.query(`UPDATE audit_log SET action = 'key.created' WHERE account_id = $1`, [
        accountId,
      ]),
    ).rejects.toThrow(/append-only/);
  });

  it('pages newest first with a cursor, one account only', async () => {
    const { accountId } = await ctx.newOwner();
    const other = await ctx.newOwner();
    for (const action of ['key.created', 'key.rolled', 'key.revoked'] as const)
      await ctx.dataSource.transaction((em) =>
        audit.record(em, { accountId, actor: { type: 'system' }, action }),
      );
    await ctx.dataSource.transaction((em) =>
      audit.record(em, {
        accountId: other.accountId,
        actor: { type: 'system' },
        action: 'key.created',
      }),
    );

    const first = await audit.page(accountId, 2);
    expect(first.items.map((r) => r.action)).toEqual(['key.revoked', 'key.rolled']);
    expect(first.nextCursor).toBe(first.items[1].id);
    const second = await audit.page(accountId, 2, first.nextCursor);
    expect(second.items.map((r) => r.action)).toEqual(['key.created']);
    expect(second.nextCursor).toBeNull();
  });

  it('purges rows older than the cutoff in batches, and no newer one', async () => {
    const { accountId } = await ctx.newOwner();
    for (let i = 0; i < 3; i++)
      await ctx.dataSource.transaction((em) =>
        audit.record(em, { accountId, actor: { type: 'system' }, action: 'key.created' }),
      );
    // Rows are never updated by the service; the test ages two by recreating them old.
    await ctx.dataSource.query(
      `ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update;
       UPDATE audit_log SET created_at = now() - interval '500 days'
        WHERE id IN (SELECT id FROM audit_log WHERE account_id = '${accountId}' ORDER BY id LIMIT 2);
       ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_update;`,
    );
    const cutoff = new Date(Date.now() - 400 * 86_400_000);
    expect(await store.purgeBefore(cutoff, 1)).toBe(1);
    expect(await store.purgeBefore(cutoff, 10)).toBe(1);
    expect(await store.purgeBefore(cutoff, 10)).toBe(0);
    expect((await audit.page(accountId, 10)).items).toHaveLength(1);
  });
});
