import type { AuditOrigin } from '../../src/audit/audit-entry';
import type { OwnerScope } from '../../src/auth/scope';
import { OutboxService } from '../../src/events/outbox.service';
import { DispatchStore } from '../../src/webhooks/dispatch/dispatch.store';
import { WebhookAttemptsService } from '../../src/webhooks/dispatch/webhook-attempts.service';
import { WebhookEndpointsService } from '../../src/webhooks/endpoints/webhook-endpoints.service';
import { WebhookFanoutService } from '../../src/webhooks/dispatch/webhook-fanout.service';
import type { AttemptResult } from '../../src/webhooks/transport/webhook-sender';
import { WebhooksModule } from '../../src/webhooks/webhooks.module';
import { sampleEventData } from '../support/events';
import { createIntegrationContext, IntegrationContext } from '../support/integration';

const SYSTEM: AuditOrigin = { actor: { type: 'system' } };

/**
 * Delivery bookkeeping: what each attempt does to the delivery (schedule, attempt log) and to the
 * endpoint (failure streak, auto-disable). Two retries, so a delivery has three attempts.
 */
describe('WebhookAttemptsService bookkeeping', () => {
  let ctx: IntegrationContext;
  let attempts: WebhookAttemptsService;
  let owner: OwnerScope;

  beforeAll(async () => {
    ctx = await createIntegrationContext(
      {
        imports: [WebhooksModule],
        providers: [WebhookAttemptsService, WebhookFanoutService, DispatchStore],
      },
      { WEBHOOK_RETRY_SCHEDULE: '1000,2000' },
    );
    attempts = ctx.get(WebhookAttemptsService);
    owner = await ctx.newOwner();
  });
  afterAll(() => ctx.close());

  const newEndpoint = async () =>
    (
      await ctx
        .get(WebhookEndpointsService)
        .create(owner, { url: 'http://127.0.0.1:9/hook' }, SYSTEM)
    ).data!;
  /** One event, fanned out to every active endpoint of the owner: their delivery ids. */
  const deliveriesOfNewEvent = async () => {
    const data = sampleEventData('listing.sold');
    await ctx.dataSource.transaction((em) =>
      ctx
        .get(OutboxService)
        .append(em, { accountId: owner.accountId, event: 'listing.sold', data }),
    );
    const [{ id }] = await ctx.dataSource.query(
      `SELECT id FROM outbox_events WHERE data->>'id' = $1`,
      [data.id],
    );
    return (await ctx.get(WebhookFanoutService).createForEvent(id, 'interactive')).created;
  };
  const failed = (): AttemptResult => ({
    ok: false,
    at: new Date(),
    responseStatus: 500,
    error: null,
    responseBodyExcerpt: 'boom',
    durationMs: 3,
  });
  const ok = (): AttemptResult => ({ ...failed(), ok: true, responseStatus: 200, error: null });
  const attemptOnce = async (deliveryId: string, result: AttemptResult) => {
    const target = (await attempts.loadTarget(deliveryId))!;
    return result.ok
      ? attempts.recordSuccess(target, result)
      : attempts.recordFailure(target, result);
  };
  const delivery = async (id: string) =>
    (
      await ctx.dataSource.query(
        `SELECT status, attempts, (SELECT count(*)::int FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id) AS logged
         FROM webhook_deliveries d WHERE id = $1`,
        [id],
      )
    )[0];
  const endpointRow = async (id: string) =>
    (
      await ctx.dataSource.query(
        'SELECT is_active, consecutive_failures, disabled_at FROM webhook_endpoints WHERE id = $1',
        [id],
      )
    )[0];

  it('a failure schedules the next attempt from the retry schedule; a success ends the streak', async () => {
    const endpoint = await newEndpoint();
    const [id] = await deliveriesOfNewEvent();
    expect(await attemptOnce(id, failed())).toEqual({ final: false, retryDelayMs: 1000 });
    expect(await attemptOnce(id, failed())).toEqual({ final: false, retryDelayMs: 2000 });
    expect(await endpointRow(endpoint.id)).toMatchObject({ consecutive_failures: 2 });
    await attemptOnce(id, { ...ok(), responseBodyExcerpt: 'tack' });
    expect(await delivery(id)).toEqual({ status: 'succeeded', attempts: 3, logged: 3 });
    // Each attempt keeps its own answer, the batched success's too.
    const logged = await ctx.dataSource.query(
      `SELECT response_status AS status, response_excerpt AS excerpt
       FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY id`,
      [id],
    );
    expect(logged).toEqual([
      { status: 500, excerpt: 'boom' },
      { status: 500, excerpt: 'boom' },
      { status: 200, excerpt: 'tack' },
    ]);
    expect(await endpointRow(endpoint.id)).toMatchObject({
      is_active: true,
      consecutive_failures: 0,
    });
    await ctx.get(WebhookEndpointsService).remove(owner, endpoint.id, SYSTEM);
  });

  it('the last failed attempt disables the endpoint and ends what else it was owed', async () => {
    const endpoint = await newEndpoint();
    const [first] = await deliveriesOfNewEvent();
    const [second] = await deliveriesOfNewEvent();
    await attemptOnce(first, failed());
    await attemptOnce(first, failed());
    expect(await attemptOnce(first, failed())).toEqual({ final: true, endpointDisabled: true });
    expect(await delivery(first)).toEqual({ status: 'failed', attempts: 3, logged: 3 });
    expect(await endpointRow(endpoint.id)).toMatchObject({
      is_active: false,
      consecutive_failures: 3,
      disabled_at: expect.any(Date),
    });
    // Never attempted, ended with the endpoint; nothing left to load for a job.
    expect(await delivery(second)).toEqual({ status: 'failed', attempts: 0, logged: 0 });
    expect(await attempts.loadTarget(second)).toBeUndefined();
    await ctx.get(WebhookEndpointsService).remove(owner, endpoint.id, SYSTEM);
  });

  it('a delivery that used up its schedule does not disable an endpoint that succeeded since its first attempt', async () => {
    const endpoint = await newEndpoint();
    const [failing] = await deliveriesOfNewEvent();
    await attemptOnce(failing, failed());
    const [succeeding] = await deliveriesOfNewEvent();
    await attemptOnce(succeeding, ok());
    await attemptOnce(failing, failed());
    expect(await attemptOnce(failing, failed())).toEqual({ final: true, endpointDisabled: false });
    expect(await endpointRow(endpoint.id)).toMatchObject({ is_active: true, disabled_at: null });
  });
});
