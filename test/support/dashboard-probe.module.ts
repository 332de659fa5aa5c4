import { Controller, Get, Module, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DashboardModule } from '../../src/dashboard/dashboard.module';
import { DashboardSessionsService } from '../../src/dashboard/dashboard-sessions.service';
import {
  Dashboard,
  type DashboardContext,
  type DashboardRequest,
} from '../../src/dashboard/web/dashboard-context';
import { DashboardRole } from '../../src/dashboard/web/dashboard-metadata';
import { DashboardController } from '../../src/dashboard/web/dashboard-page.decorator';
import { DashboardViews } from '../../src/dashboard/web/views';

/**
 * A page as the page helpers write them, behind the dashboard's real guard and filter: a write
 * that only owners and developers may make, and a page that needs a recent password.
 */
@DashboardController()
@Controller('dashboard/probe')
class DashboardProbeController {
  /** what the write saw, per account: a test reads it to prove nothing changed */
  static writes: { accountId: string; livemode: boolean }[] = [];

  constructor(
    private readonly views: DashboardViews,
    private readonly sessions: DashboardSessionsService,
  ) {}

  @Post('write')
  @DashboardRole('owner', 'developer')
  write(@Dashboard() ctx: DashboardContext, @Res() res: Response): void {
    DashboardProbeController.writes.push({ accountId: ctx.account.id, livemode: ctx.livemode });
    this.views.redirect(res, '/dashboard');
  }

  @Get('sensitive')
  sensitive(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
  ): void {
    this.sessions.requireRecentPassword(ctx, req.originalUrl);
    this.views.send(res, req, 'error', { title: 'Sensitive', status: 200, message: 'allowed' });
  }

  /** An unexpected failure: the filter's 500 page. */
  @Get('boom')
  boom(): void {
    throw new Error('probe failure');
  }
}

@Module({ imports: [DashboardModule], controllers: [DashboardProbeController] })
export class DashboardProbeModule {}

export const probeWrites = () => DashboardProbeController.writes;
