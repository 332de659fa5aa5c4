import type { AuditOrigin } from '../../src/audit/audit-entry';
import type { OwnerScope } from '../../src/auth/scope';
import { OutboxService } from '../../src/events/outbox.service';
import { DispatchStore } from '../../src/webhooks/dispatch/dispatch.store';
import { WebhookFanoutService } from '../../src/webhooks/dispatch/webhook-fanout.service';
import { WebhookEndpointsService } from '../../src/webhooks/endpoints/webhook-endpoints.service';
import { WebhooksModule } from '../../src/webhooks/webhooks.module';
import { sampleEventData } from '../support/events';
import { createIntegrationContext, IntegrationContext } from '../support/integration';

const SYSTEM: AuditOrigin = { actor: { type: 'system' } };

/**
 * Fan-out against the real database: an endpoint hears of the events committed after its
 * creation, however late the fan-out runs (a bulk backlog can hold an event for minutes).
 */
describe('Fan-out and an endpoint created meanwhile', () => {
  let ctx: IntegrationContext;
  let owner: OwnerScope;

  beforeAll(async () => {
    ctx = await createIntegrationContext({
      imports: [WebhooksModule],
      providers: [WebhookFanoutService, DispatchStore],
    });
    owner = await ctx.newOwner();
  });
  afterAll(() => ctx?.close());

  const newEndpoint = async () =>
    (
      await ctx
        .get(WebhookEndpointsService)
        .create(owner, { url: 'http://127.0.0.1:9/hook' }, SYSTEM)
    ).data!.id;
  const sold = () => ({
    accountId: owner.accountId,
    event: 'listing.sold' as const,
    data: sampleEventData('listing.sold'),
  });
  const eventId = async (listingId: string): Promise<string> =>
    (
      await ctx.dataSource.query(`SELECT id FROM outbox_events WHERE data->>'id' = $1`, [listingId])
    )[0].id;
  const endpointsReached = async (id: string) =>
    (
      await ctx.dataSource.query(
        'SELECT endpoint_id FROM webhook_deliveries WHERE event_id = $1 ORDER BY endpoint_id',
        [id],
      )
    ).map((r: { endpoint_id: string }) => r.endpoint_id);

  it('skips an endpoint created after the event committed, and reaches one created before', async () => {
    const before = await newEndpoint();
    const first = sold();
    await ctx.dataSource.transaction((em) => ctx.get(OutboxService).append(em, first));
    const early = sold();
    await ctx.dataSource.transaction((em) => ctx.get(OutboxService).append(em, early));
    const after = await newEndpoint();
    const late = sold();
    await ctx.dataSource.transaction((em) => ctx.get(OutboxService).append(em, late));

    // Fanned out only now, as if they had waited behind a backlog: `first` goes alone, and the
    // other two arrive while it runs, so one statement judges each against its own commit.
    const fanout = ctx.get(WebhookFanoutService);
    const ids = await Promise.all([first, early, late].map((event) => eventId(event.data.id)));
    const [, earlyId, lateId] = ids;
    await Promise.all(ids.map((id) => fanout.createForEvent(id, 'interactive')));
    expect(await endpointsReached(earlyId)).toEqual([before]);
    expect(await endpointsReached(lateId)).toEqual([before, after].sort());
  });

  it('reaches an endpoint created while the event was being written (it committed after)', async () => {
    const open = ctx.dataSource.createQueryRunner();
    await open.startTransaction();
    const pending = sold();
    let endpoint: string;
    try {
      await ctx.get(OutboxService).append(open.manager, pending);
      // Straight into the table: the service's create waits for the account's open writers.
      [{ id: endpoint }] = await ctx.dataSource.query(
        `INSERT INTO webhook_endpoints (account_id, livemode, url, secret)
         VALUES ($1, true, 'http://127.0.0.1:9/hook', 'whsec_dGVzdA==') RETURNING id`,
        [owner.accountId],
      );
      await open.commitTransaction();
    } finally {
      await open.release();
    }
    const id = await eventId(pending.data.id);
    await ctx.get(WebhookFanoutService).createForEvent(id, 'interactive');
    expect(await endpointsReached(id)).toContain(endpoint);
  });

  it('fans out events arriving together in shared statements, each to its own subscribers, once', async () => {
    const other = await ctx.newOwner();
    const endpoints = ctx.get(WebhookEndpointsService);
    const onSales = (
      await endpoints.create(
        other,
        { url: 'http://127.0.0.1:9/sales', events: ['listing.sold'] },
        SYSTEM,
      )
    ).data!.id;
    const onAll = (await endpoints.create(other, { url: 'http://127.0.0.1:9/all' }, SYSTEM)).data!
      .id;
    const events = Array.from({ length: 20 }, (_, i) => ({
      accountId: other.accountId,
      event: i % 2 === 0 ? ('listing.sold' as const) : ('listing.created' as const),
      data: sampleEventData(i % 2 === 0 ? 'listing.sold' : 'listing.created'),
    }));
    await ctx.dataSource.transaction(async (em) => {
      for (const event of events) await ctx.get(OutboxService).append(em, event);
    });
    const ids = await Promise.all(events.map((event) => eventId(event.data.id)));

    const queries = jest.spyOn(ctx.dataSource, 'query');
    const fanout = ctx.get(WebhookFanoutService);
    // The second event twice in one batch, as a retried job racing its original would ask.
    const results = await Promise.all(
      [...ids, ids[1]].map((id) => fanout.createForEvent(id, 'interactive')),
    );
    const statements = queries.mock.calls.length;
    queries.mockRestore();

    // One lone call, then the other twenty together: a read and a write each.
    expect(statements).toBeLessThanOrEqual(4);
    for (const [i, id] of ids.entries()) {
      const reached = await endpointsReached(id);
      expect(reached).toEqual((i % 2 === 0 ? [onSales, onAll] : [onAll]).sort());
      expect(results[i].created.sort()).toEqual(
        (await ctx.dataSource.query('SELECT id FROM webhook_deliveries WHERE event_id = $1', [id]))
          .map((r: { id: string }) => r.id)
          .sort(),
      );
      expect(results[i].resumed).toEqual([]);
    }
    expect(results[20]).toEqual({ created: [], resumed: [] });

    // Again, later: nothing created, every pending delivery resumed.
    const again = await fanout.createForEvent(ids[1], 'interactive');
    expect(again.created).toEqual([]);
    expect(again.resumed.map((d) => d.id).sort()).toEqual(results[1].created.sort());
  });
});
