import { Controller, Get, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiKeysService } from '../../accounts/api-keys.service';
import { FieldError, ValidationError } from '../../common/errors/domain-error';
import { validateDto } from '../../common/http/validation.pipe';
import { RateLimitWindows, type RateLimitWindow } from '../../rate-limit/rate-limit-windows';
import { UsageQueryDto } from '../../usage/dto/usage-query.dto';
import { UsageService } from '../../usage/usage.service';
import { Dashboard, type DashboardContext, type DashboardRequest } from '../web/dashboard-context';
import { DashboardController } from '../web/dashboard-page.decorator';
import { filledFields, FormState, queryText } from '../web/form';
import { DashboardViews } from '../web/views';

/** The choices of the period select; the number input takes any 1–90. */
export const PERIODS = ['7', '30', '90'] as const;

/**
 * Usage (read only, every role): requests per day of the mode's keys or one of them, split by
 * status class, per endpoint, and the keys' current rate-limit windows. It reads through
 * UsageService as GET /v1/me/usage does, so one key's numbers are the API's.
 */
@DashboardController()
@Controller('dashboard/usage')
export class UsagePageController {
  constructor(
    private readonly views: DashboardViews,
    private readonly usage: UsageService,
    private readonly apiKeys: ApiKeysService,
    private readonly windows: RateLimitWindows,
  ) {}

  @Get()
  async page(
    @Dashboard() ctx: DashboardContext,
    @Req() req: DashboardRequest,
    @Res() res: Response,
  ): Promise<void> {
    const kind = ctx.livemode ? 'live' : 'test';
    const keys = (await this.apiKeys.list(ctx.account.id)).filter((k) => k.kind === kind);
    const values = {
      period: queryText(req.query.period),
      days: queryText(req.query.days),
      key: queryText(req.query.key),
    };
    const errors: FieldError[] = [];
    const field = values.days !== '' ? 'days' : 'period';
    let days = 30;
    try {
      days = (await validateDto(UsageQueryDto, filledFields({ days: values[field] }))).days;
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.push({ field, message: error.details?.[0]?.message ?? error.message });
    }
    const chosen = values.key === '' ? undefined : keys.find((k) => k.id === values.key);
    if (values.key !== '' && !chosen)
      errors.push({ field: 'key', message: "Choose one of this account's keys in this mode." });
    const common = { title: 'Usage', nav: 'usage', keys, periods: PERIODS, values };
    if (errors.length > 0) {
      return this.views.send(
        res,
        req,
        'usage/usage',
        { ...common, form: new FormState(values, errors) },
        400,
      );
    }
    const keyIds = chosen ? [chosen.id] : keys.map((k) => k.id);
    const usage = await this.usage.summarizeKeys(keyIds, days);
    const now = new Date();
    const live = (chosen ? [chosen] : keys).filter(
      (k) => !k.revokedAt && (!k.expiresAt || k.expiresAt > now),
    );
    let windows: RateLimitWindow[] | null;
    try {
      windows = await this.windows.current(live.map((k) => k.id));
    } catch {
      windows = null; // Redis is down: the guard fails open too; the page says so
    }
    const names = new Map(keys.map((k) => [k.id, `${k.name} (${k.prefix}…)`]));
    this.views.send(res, req, 'usage/usage', {
      ...common,
      charts: true,
      form: FormState.empty(values),
      days,
      chosen,
      usage,
      windows,
      keyName: (id: string) => names.get(id) ?? id,
      chartData: chartDataOf(usage.classes, usage.dailyByClass),
    });
  }
}

/**
 * The chart's data island: JSON in a `<script type="application/json">` (not executed, so the CSP
 * allows it); `<` escaped so no text can close the element.
 */
function chartDataOf(classes: number[], daily: { date: string; counts: number[] }[]): string {
  const data = {
    x: daily.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000),
    series: classes.map((c, i) => ({ label: `${c}xx`, values: daily.map((d) => d.counts[i]) })),
  };
  return JSON.stringify(data).replace(/</g, '\\u003c');
}
