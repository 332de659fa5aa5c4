import { Controller, Get, Post, Query, Req, Res } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { isUUID } from 'class-validator';
import type { Response } from 'express';
import { ValidationError } from '../../common/errors/domain-error';
import { UuidParam } from '../../common/http/uuid-param.decorator';
import { validateDto } from '../../common/http/validation.pipe';
import { EVENT_NAMES } from '../../events/event-types';
import type { AllConfig } from '../../platform/config';
import { TEST_EVENT } from '../../webhooks/deliveries/delivery-payload';
import { ListDeliveriesQueryDto } from '../../webhooks/deliveries/dto/list-deliveries.query.dto';
import { DELIVERY_STATUSES } from '../../webhooks/deliveries/webhook-delivery.entity';
import { WebhookDeliveriesService } from '../../webhooks/deliveries/webhook-deliveries.service';
import { CreateWebhookDto } from '../../webhooks/endpoints/dto/create-webhook.dto';
import { RotateSecretDto } from '../../webhooks/endpoints/dto/rotate-secret.dto';
import { UpdateWebhookDto } from '../../webhooks/endpoints/dto/update-webhook.dto';
import type { WebhookEndpoint } from '../../webhooks/endpoints/webhook-endpoint.entity';
import { WebhookEndpointsService } from '../../webhooks/endpoints/webhook-endpoints.service';
import { Dashboard, type DashboardContext, type DashboardRequest } from '../web/dashboard-context';
import { DashboardForbidden } from '../web/dashboard-errors';
import { DashboardRole } from '../web/dashboard-metadata';
import { DashboardController } from '../web/dashboard-page.decorator';
import { filledFields, Form, type FormFields, FormState, queryText } from '../web/form';
import { FormOnce } from '../web/form-once';
import { scopeOf, userOrigin } from '../web/origin';
import { DashboardViews } from '../web/views';
import { fromLocalDateTime, toLocalDateTime } from './local-time';

const BASE = '/dashboard/webhooks';
const PAGE_SIZE = 20;

/** This page's notices after a redirect (`?done=`): fixed texts, never taken from the URL. */
const DONE: Record<string, string> = {
  updated: 'The endpoint is saved.',
  deleted: 'The endpoint and its deliveries are deleted.',
  enabled: 'The endpoint is enabled. Its failure streak starts again from 0.',
  disabled: 'The endpoint is disabled. Nothing is sent to it until you enable it.',
  'test-sent': 'A webhook.test delivery was sent. Its attempt is below.',
  retried: 'A retry is queued. The attempt shows here once it has been made.',
  recovered: 'Missed events are queued for delivery again.',
};

/** The form's events checkboxes, as the API's array (a single box arrives as a string). */
function eventsOf(req: DashboardRequest): string[] {
  const sent = (req.body as Record<string, unknown> | undefined)?.events;
  const list = Array.isArray(sent) ? sent : sent === undefined ? [] : [sent];
  return list.filter((e): e is string => typeof e === 'string');
}

/** What the endpoint form re-shows: the text fields and the ticked events. */
function endpointValues(form: FormFields, events: string[]) {
  return { values: { url: form.url ?? '', description: form.description ?? '' }, events };
}

/**
 * Webhooks: the mode's endpoints, create (the signing secret shown once), edit, enable or disable,
 * delete, send test, rotate the secret; an endpoint's deliveries with their attempts, retry and
 * recover. Every change goes through the API's services, so the API's rules and audit rows hold.
 */
@DashboardController()
@Controller('dashboard/webhooks')
export class WebhooksPageController {
  private readonly maxAttempts: number;
  private readonly scheduleHours: number;
  private readonly retentionDays: number;

  constructor(
    private readonly views: DashboardViews,
    private readonly endpoints: WebhookEndpointsService,
    private readonly deliveries: WebhookDeliveriesService,
    private readonly formOnce: FormOnce,
    config: ConfigService<AllConfig, true>,
  ) {
    const delays = config.get('webhooks.retryDelaysMs', { infer: true });
    this.maxAttempts = delays.length + 1;
    this.scheduleHours = Math.round(delays.reduce((a, b) => a + b, 0) / 3_600_000);
    this.retentionDays = Math.floor(
      config.get('events.eventRetentionMs', { infer: true }) / 86_400_000,
    );
  }

  @Get()
  async list(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
  ): Promise<void> {
    this.views.send(res, req, 'webhooks/list', {
      ...(await this.common(req, ctx)),
      title: 'Webhooks',
      endpoints: await this.endpoints.list(scopeOf(ctx)),
    });
  }

  @Get('new')
  @DashboardRole('owner', 'developer')
  async newPage(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
  ): Promise<void> {
    this.assertWritable(ctx);
    await this.sendCreateForm(req, ctx, res, FormState.empty(), []);
  }

  /**
   * The answer shows the signing secret, once: no redirect, never stored. A second submit of the
   * same form (reload, back and submit) finds its one-time token used and creates nothing.
   */
  @Post()
  @DashboardRole('owner', 'developer')
  async create(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @Form() form: FormFields,
  ): Promise<void> {
    this.assertWritable(ctx);
    const events = eventsOf(req);
    const { values } = endpointValues(form, events);
    try {
      const dto = await validateDto(CreateWebhookDto, {
        url: form.url ?? '',
        events,
        description: form.description ? form.description : undefined,
      });
      if (!(await this.formOnce.consume(ctx, form.formToken))) {
        return this.views.send(
          res,
          req,
          'webhooks/list',
          {
            ...(await this.common(req, ctx)),
            title: 'Webhooks',
            endpoints: await this.endpoints.list(scopeOf(ctx)),
            notice:
              'This form was already sent, so nothing new was created. A signing secret is shown only once, in the answer to the first submit.',
          },
          409,
        );
      }
      const outcome = await this.endpoints.create(scopeOf(ctx), dto, userOrigin(req, ctx));
      // Without an idempotency key the work runs once and answers its data.
      const created = outcome.data!;
      res.setHeader('Cache-Control', 'no-store');
      this.views.send(
        res,
        req,
        'webhooks/secret',
        {
          title: 'Endpoint created',
          nav: 'webhooks',
          endpoint: created,
          secret: created.secret,
          created: true,
        },
        201,
      );
    } catch (error) {
      await this.sendCreateForm(req, ctx, res, FormState.refused(error, values), events, 400);
    }
  }

  /** The endpoint, its actions and its deliveries (filtered by status and event, paged). */
  @Get(':id')
  async endpoint(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @UuidParam('id', 'Webhook endpoint') id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<void> {
    const endpoint = await this.endpoints.get(scopeOf(ctx), id);
    const filter = {
      status: queryText(query.status),
      event: queryText(query.event),
      before: queryText(query.before),
    };
    let form = FormState.empty(filter);
    let page;
    try {
      const { before, ...rest } = filledFields(filter);
      const dto = await validateDto(ListDeliveriesQueryDto, { ...rest, limit: PAGE_SIZE });
      if (before !== undefined && !isUUID(before))
        throw ValidationError.field('before', 'before must be the id of a delivery.');
      page = await this.deliveries.historyBefore(endpoint, {
        limit: PAGE_SIZE,
        status: dto.status,
        event: dto.event,
        before,
      });
    } catch (error) {
      form = FormState.refused(error, filter);
    }
    // Cursor paging: Older continues after this page's last delivery, Newest starts again.
    const link = (before?: string) => {
      const q = new URLSearchParams();
      if (filter.status) q.set('status', filter.status);
      if (filter.event) q.set('event', filter.event);
      if (before) q.set('before', before);
      const s = q.toString();
      return `${BASE}/${id}${s ? `?${s}` : ''}#deliveries`;
    };
    this.views.send(
      res,
      req,
      'webhooks/endpoint',
      {
        ...(await this.common(req, ctx)),
        title: `Webhook endpoint ${endpoint.url}`,
        endpoint,
        deliveries: page?.items ?? [],
        newest: filter.before ? link() : null,
        older: page?.pagination.nextCursor ? link(page.pagination.nextCursor) : null,
        statuses: DELIVERY_STATUSES,
        deliveryEvents: [...EVENT_NAMES, TEST_EVENT],
        filter,
        form,
        sinceDefault: toLocalDateTime(new Date(Date.now() - 24 * 3_600_000)),
      },
      form.hasErrors ? 400 : 200,
    );
  }

  @Get(':id/edit')
  @DashboardRole('owner', 'developer')
  async editPage(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @UuidParam('id', 'Webhook endpoint') id: string,
  ): Promise<void> {
    this.assertWritable(ctx);
    const endpoint = await this.endpoints.get(scopeOf(ctx), id);
    this.sendEditForm(
      req,
      res,
      endpoint,
      FormState.empty({ url: endpoint.url, description: endpoint.description ?? '' }),
      endpoint.events,
    );
  }

  @Post(':id')
  @DashboardRole('owner', 'developer')
  async update(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @UuidParam('id', 'Webhook endpoint') id: string,
    @Form() form: FormFields,
  ): Promise<void> {
    this.assertWritable(ctx);
    const endpoint = await this.endpoints.get(scopeOf(ctx), id);
    const events = eventsOf(req);
    const { values } = endpointValues(form, events);
    try {
      const dto = await validateDto(UpdateWebhookDto, {
        url: form.url ?? '',
        events,
        description: form.description ? form.description : null,
      });
      await this.endpoints.update(scopeOf(ctx), id, dto, userOrigin(req, ctx));
      this.views.redirect(res, `${BASE}/${id}?done=updated`);
    } catch (error) {
      this.sendEditForm(req, res, endpoint, FormState.refused(error, values), events, 400);
    }
  }

  /** Enable (re-enable after an auto-disable: the failure streak starts again) or disable. */
  @Post(':id/enable')
  @DashboardRole('owner', 'developer')
  async enable(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @UuidParam('id', 'Webhook endpoint') id: string,
  ): Promise<void> {
    this.assertWritable(ctx);
    await this.endpoints.update(scopeOf(ctx), id, { isActive: true }, userOrigin(req, ctx));
    this.views.redirect(res, `${BASE}/${id}?done=enabled`);
  }

  @Post(':id/disable')
  @DashboardRole('owner', 'developer')
  async disable(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @UuidParam('id', 'Webhook endpoint') id: string,
  ): Promise<void> {
    this.assertWritable(ctx);
    await this.endpoints.update(scopeOf(ctx), id, { isActive: false }, userOrigin(req, ctx));
    this.views.redirect(res, `${BASE}/${id}?done=disabled`);
  }

  @Get(':id/delete')
  @DashboardRole('owner', 'developer')
  async deletePage(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @UuidParam('id', 'Webhook endpoint') id: string,
  ): Promise<void> {
    this.assertWritable(ctx);
    const endpoint = await this.endpoints.get(scopeOf(ctx), id);
    this.views.send(res, req, 'webhooks/delete', {
      title: 'Delete webhook endpoint',
      nav: 'webhooks',
      endpoint,
    });
  }

  @Post(':id/delete')
  @DashboardRole('owner', 'developer')
  async remove(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @UuidParam('id', 'Webhook endpoint') id: string,
  ): Promise<void> {
    this.assertWritable(ctx);
    await this.endpoints.remove(scopeOf(ctx), id, userOrigin(req, ctx));
    this.views.redirect(res, `${BASE}?done=deleted`);
  }

  /** Sends a signed webhook.test now and shows its delivery with the attempt. */
  @Post(':id/test')
  @DashboardRole('owner', 'developer')
  async sendTest(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @UuidParam('id', 'Webhook endpoint') id: string,
  ): Promise<void> {
    this.assertWritable(ctx);
    const delivery = await this.deliveries.sendTest(scopeOf(ctx), id, userOrigin(req, ctx));
    this.views.redirect(res, `${BASE}/${id}/deliveries/${delivery.id}?done=test-sent`);
  }

  @Get(':id/rotate')
  @DashboardRole('owner', 'developer')
  async rotatePage(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @UuidParam('id', 'Webhook endpoint') id: string,
  ): Promise<void> {
    this.assertWritable(ctx);
    await this.sendRotateForm(req, ctx, res, id, FormState.empty({ grace: '24' }));
  }

  /** The new secret is shown in this answer only (no redirect, never stored), like a new one. */
  @Post(':id/rotate')
  @DashboardRole('owner', 'developer')
  async rotate(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @UuidParam('id', 'Webhook endpoint') id: string,
    @Form() form: FormFields,
  ): Promise<void> {
    this.assertWritable(ctx);
    const grace = form.grace ?? '';
    try {
      await this.endpoints.get(scopeOf(ctx), id);
      const dto = await validateDto(RotateSecretDto, {
        expireCurrentAfterHours: /^\d{1,6}$/.test(grace) ? Number(grace) : grace,
      }).catch((error: unknown) => {
        throw error instanceof ValidationError
          ? ValidationError.field('grace', 'Enter a whole number of hours from 0 to 72.')
          : error;
      });
      if (!(await this.formOnce.consume(ctx, form.formToken))) {
        return this.views.redirect(res, `${BASE}/${id}`);
      }
      const rotated = await this.endpoints.rotateSecret(
        scopeOf(ctx),
        id,
        dto.expireCurrentAfterHours,
        userOrigin(req, ctx),
      );
      res.setHeader('Cache-Control', 'no-store');
      this.views.send(res, req, 'webhooks/secret', {
        title: 'Signing secret rotated',
        nav: 'webhooks',
        endpoint: rotated,
        secret: rotated.secret,
        created: false,
        graceHours: dto.expireCurrentAfterHours,
      });
    } catch (error) {
      await this.sendRotateForm(req, ctx, res, id, FormState.refused(error, { grace }), 400);
    }
  }

  /** One delivery with every attempt (time, status, duration, the receiver's answer). */
  @Get(':id/deliveries/:deliveryId')
  async delivery(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @UuidParam('id', 'Webhook endpoint') id: string,
    @UuidParam('deliveryId', 'Webhook delivery') deliveryId: string,
  ): Promise<void> {
    await this.sendDelivery(req, ctx, res, id, deliveryId, FormState.empty());
  }

  @Post(':id/deliveries/:deliveryId/retry')
  @DashboardRole('owner', 'developer')
  async retry(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @UuidParam('id', 'Webhook endpoint') id: string,
    @UuidParam('deliveryId', 'Webhook delivery') deliveryId: string,
  ): Promise<void> {
    this.assertWritable(ctx);
    try {
      await this.deliveries.requestRetry(scopeOf(ctx), id, deliveryId, userOrigin(req, ctx));
      this.views.redirect(res, `${BASE}/${id}/deliveries/${deliveryId}?done=retried`);
    } catch (error) {
      const form = FormState.refused(this.disabledMessage(error), {});
      await this.sendDelivery(req, ctx, res, id, deliveryId, form, 400);
    }
  }

  /** Every subscribed event since a time without a succeeded or pending delivery goes again. */
  @Post(':id/recover')
  @DashboardRole('owner', 'developer')
  async recover(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @UuidParam('id', 'Webhook endpoint') id: string,
    @Form() form: FormFields,
  ): Promise<void> {
    this.assertWritable(ctx);
    await this.endpoints.get(scopeOf(ctx), id);
    try {
      const since = fromLocalDateTime(form.since, 'since');
      const queued = await this.deliveries.recover(
        scopeOf(ctx),
        id,
        since.toISOString(),
        userOrigin(req, ctx),
      );
      this.views.redirect(res, `${BASE}/${id}?done=recovered&queued=${queued}`);
    } catch (error) {
      const refused = FormState.refused(this.disabledMessage(error), { since: form.since ?? '' });
      this.views.send(
        res,
        req,
        'webhooks/recover',
        {
          ...(await this.common(req, ctx)),
          title: 'Recover missed events',
          endpoint: await this.endpoints.get(scopeOf(ctx), id),
          form: refused,
        },
        400,
      );
    }
  }

  // ---- helpers ----

  /**
   * Only an owner or developer of an approved account changes its webhooks (also the GET of a
   * form: the guard checks roles on POSTs); a viewer, a pending or a suspended account reads.
   */
  private assertWritable(ctx: DashboardContext): void {
    if (ctx.role === 'viewer') throw new DashboardForbidden();
    if (ctx.account.status !== 'APPROVED') {
      throw new DashboardForbidden(
        'Webhooks can be changed once the account has API access, and not while it is suspended.',
      );
    }
  }

  /** The service's "re-enable first" refusal, in the dashboard's words. */
  private disabledMessage(error: unknown): unknown {
    if (error instanceof ValidationError && error.details?.[0]?.field === 'isActive') {
      return ValidationError.field(
        'enable',
        'The endpoint is disabled: enable it first, then retry or recover.',
      );
    }
    return error;
  }

  private async common(req: DashboardRequest, ctx: DashboardContext) {
    const done = typeof req.query.done === 'string' ? DONE[req.query.done] : undefined;
    const queued = typeof req.query.queued === 'string' ? Number(req.query.queued) : NaN;
    return {
      nav: 'webhooks',
      notice:
        done && req.query.done === 'recovered' && Number.isInteger(queued)
          ? `${queued} ${queued === 1 ? 'delivery is' : 'deliveries are'} queued again.`
          : done,
      canWrite: ctx.role !== 'viewer' && ctx.account.status === 'APPROVED',
      maxAttempts: this.maxAttempts,
      scheduleHours: this.scheduleHours,
      retentionDays: this.retentionDays,
      allEvents: EVENT_NAMES,
    };
  }

  private async sendCreateForm(
    req: DashboardRequest,
    ctx: DashboardContext,
    res: Response,
    form: FormState,
    events: string[],
    status = 200,
  ): Promise<void> {
    this.views.send(
      res,
      req,
      'webhooks/form',
      {
        title: 'Add a webhook endpoint',
        nav: 'webhooks',
        action: BASE,
        submit: 'Create endpoint',
        formToken: await this.formOnce.issue(ctx),
        allEvents: EVENT_NAMES,
        events,
        form,
      },
      status,
    );
  }

  private sendEditForm(
    req: DashboardRequest,
    res: Response,
    endpoint: WebhookEndpoint,
    form: FormState,
    events: string[],
    status = 200,
  ): void {
    this.views.send(
      res,
      req,
      'webhooks/form',
      {
        title: 'Edit webhook endpoint',
        nav: 'webhooks',
        action: `${BASE}/${endpoint.id}`,
        submit: 'Save endpoint',
        endpoint,
        allEvents: EVENT_NAMES,
        events,
        form,
      },
      status,
    );
  }

  private async sendRotateForm(
    req: DashboardRequest,
    ctx: DashboardContext,
    res: Response,
    id: string,
    form: FormState,
    status = 200,
  ): Promise<void> {
    const endpoint = await this.endpoints.get(scopeOf(ctx), id);
    this.views.send(
      res,
      req,
      'webhooks/rotate',
      {
        title: 'Rotate the signing secret',
        nav: 'webhooks',
        endpoint,
        formToken: await this.formOnce.issue(ctx),
        form,
      },
      status,
    );
  }

  private async sendDelivery(
    req: DashboardRequest,
    ctx: DashboardContext,
    res: Response,
    id: string,
    deliveryId: string,
    form: FormState,
    status = 200,
  ): Promise<void> {
    const { delivery, attempts } = await this.deliveries.detail(scopeOf(ctx), id, deliveryId);
    const endpoint = await this.endpoints.get(scopeOf(ctx), id);
    this.views.send(
      res,
      req,
      'webhooks/delivery',
      {
        ...(await this.common(req, ctx)),
        title: `Delivery ${delivery.event}`,
        endpoint,
        delivery,
        attempts,
        form,
      },
      status,
    );
  }
}
