import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DashboardSessionsService } from './dashboard-sessions.service';
import { OverviewFactsReader } from './overview-facts';
import { PeopleService } from './people.service';
import { safeNextPath } from './security/next-path';
import { Dashboard, type DashboardContext, type DashboardRequest } from './web/dashboard-context';
import { DashboardController } from './web/dashboard-page.decorator';
import { Form, type FormFields, FormState } from './web/form';
import { DashboardViews } from './web/views';
import { originOf } from './web/origin';

const HOME = '/dashboard';

/** The overview, the mode and account switches, confirming and changing the password. */
@DashboardController()
@Controller('dashboard')
export class OverviewController {
  constructor(
    private readonly views: DashboardViews,
    private readonly sessions: DashboardSessionsService,
    private readonly people: PeopleService,
    private readonly facts: OverviewFactsReader,
  ) {}

  /** The account, its access request, today's requests and what needs attention, in the mode. */
  @Get()
  async overview(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
  ): Promise<void> {
    const facts = await this.facts.read({ accountId: ctx.account.id, livemode: ctx.livemode });
    this.views.send(res, req, 'overview', { title: 'Overview', nav: 'overview', facts });
  }

  /** The live/test switch, kept in the session; back to the page it was sent from. */
  @Post('mode')
  async mode(
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @Form() form: FormFields,
  ): Promise<void> {
    if (form.mode === 'live' || form.mode === 'test')
      await this.sessions.setLivemode(ctx, form.mode === 'live');
    this.views.redirect(res, safeNextPath(form.next) ?? HOME);
  }

  /** Another of the user's accounts (a privilege change: a new session token). */
  @Post('account')
  async switchAccount(
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @Form() form: FormFields,
  ): Promise<void> {
    await this.sessions.switchAccount(ctx, res, form.accountId);
    this.views.redirect(res, HOME);
  }

  @Get('confirm-password')
  confirmPasswordPage(@Req() req: DashboardRequest, @Res() res: Response): void {
    this.views.send(res, req, 'confirm-password', {
      title: 'Confirm your password',
      next: safeNextPath(req.query.next),
    });
  }

  @Post('confirm-password')
  async confirmPassword(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @Form() form: FormFields,
  ): Promise<void> {
    const next = safeNextPath(form.next);
    if (await this.sessions.confirmPassword(ctx, res, form.password ?? ''))
      return this.views.redirect(res, next ?? HOME);
    this.views.send(res, req, 'confirm-password', {
      title: 'Confirm your password',
      next,
      form: FormState.withError({}, 'password', 'The password is not right.'),
    });
  }

  @Get('password')
  changePasswordPage(@Req() req: DashboardRequest, @Res() res: Response): void {
    this.views.send(res, req, 'change-password', { title: 'Change your password' });
  }

  /** Ends the user's other sessions; this one continues with a new token. */
  @Post('password')
  async changePassword(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @Form() form: FormFields,
  ): Promise<void> {
    try {
      await this.people.changePassword(
        ctx.user.id,
        ctx.session.id,
        form.currentPassword ?? '',
        form.newPassword ?? '',
        originOf(req),
      );
      await this.sessions.afterPasswordChange(ctx, res);
      this.views.redirect(res, `${HOME}?notice=password-changed`);
    } catch (error) {
      this.views.send(res, req, 'change-password', {
        title: 'Change your password',
        form: FormState.refused(error, {}),
      });
    }
  }
}
