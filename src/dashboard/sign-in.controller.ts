import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DashboardSessionsService } from './dashboard-sessions.service';
import { PeopleService } from './people.service';
import { safeNextPath } from './security/next-path';
import { SignInService } from './sign-in.service';
import type { DashboardRequest } from './web/dashboard-context';
import { DashboardAnonymous, DashboardUnverified } from './web/dashboard-metadata';
import { DashboardController } from './web/dashboard-page.decorator';
import { Form, type FormFields, FormState } from './web/form';
import { DashboardViews } from './web/views';
import { originOf } from './web/origin';

const HOME = '/dashboard';

/** Signing in and out, signing up, verifying the email, resetting a forgotten password. */
@DashboardController()
@Controller('dashboard')
export class SignInController {
  constructor(
    private readonly views: DashboardViews,
    private readonly signIns: SignInService,
    private readonly sessions: DashboardSessionsService,
    private readonly people: PeopleService,
  ) {}

  @Get('sign-in')
  @DashboardAnonymous()
  signInPage(@Req() req: DashboardRequest, @Res() res: Response): void {
    const next = safeNextPath(req.query.next);
    if (req.dashboard) return this.views.redirect(res, next ?? HOME);
    this.views.send(res, req, 'sign-in', { title: 'Sign in', next });
  }

  @Post('sign-in')
  @DashboardAnonymous()
  async signIn(
    @Req() req: DashboardRequest,
    @Res() res: Response,
    @Form() form: FormFields,
  ): Promise<void> {
    const next = safeNextPath(form.next);
    try {
      const user = await this.signIns.signIn({
        email: form.email ?? '',
        password: form.password ?? '',
        ip: req.ip,
        userAgent: req.headers['user-agent'],
      });
      // Whatever session this browser had ends: a sign-in always gets a new token.
      if (req.dashboard) await this.sessions.signOut(req.dashboard, res);
      await this.sessions.start(req, res, user);
      this.views.redirect(res, next ?? HOME);
    } catch (error) {
      const state = FormState.refused(error, { email: form.email ?? '' });
      this.views.send(res, req, 'sign-in', { title: 'Sign in', next, form: state });
    }
  }

  @Get('sign-up')
  @DashboardAnonymous()
  signUpPage(@Req() req: DashboardRequest, @Res() res: Response): void {
    if (req.dashboard) return this.views.redirect(res, HOME);
    this.views.send(res, req, 'sign-up', { title: 'Create your account' });
  }

  @Post('sign-up')
  @DashboardAnonymous()
  async signUp(
    @Req() req: DashboardRequest,
    @Res() res: Response,
    @Form() form: FormFields,
  ): Promise<void> {
    try {
      const { user } = await this.people.signUp({
        email: form.email ?? '',
        password: form.password ?? '',
        company: form.company ?? '',
      });
      if (req.dashboard) await this.sessions.signOut(req.dashboard, res);
      await this.sessions.start(req, res, user);
      this.views.redirect(res, '/dashboard/verify-email');
    } catch (error) {
      const state = FormState.refused(error, {
        email: form.email ?? '',
        company: form.company ?? '',
      });
      this.views.send(res, req, 'sign-up', { title: 'Create your account', form: state });
    }
  }

  /** With `?token=`: the mailed link, confirmed by a button (a link scanner's GET uses nothing). */
  @Get('verify-email')
  @DashboardAnonymous()
  async verifyEmailPage(@Req() req: DashboardRequest, @Res() res: Response): Promise<void> {
    const token = req.query.token;
    if (token !== undefined) {
      const usable = await this.people.tokenUsable('verify_email', token);
      return this.views.send(
        res,
        req,
        'verify-email-link',
        { title: 'Verify your email', token: usable ? token : undefined },
        usable ? 200 : 400,
      );
    }
    if (!req.dashboard) return this.views.redirect(res, '/dashboard/sign-in');
    if (req.dashboard.user.emailVerified) return this.views.redirect(res, HOME);
    this.views.send(res, req, 'verify-email', { title: 'Verify your email' });
  }

  @Post('verify-email')
  @DashboardAnonymous()
  async verifyEmail(
    @Req() req: DashboardRequest,
    @Res() res: Response,
    @Form() form: FormFields,
  ): Promise<void> {
    const userId = await this.people.verifyEmail(form.token);
    if (!userId)
      return this.views.send(res, req, 'verify-email-link', { title: 'Verify your email' }, 400);
    const signedInAsThem = req.dashboard?.user.id === userId;
    // A verified email opens the whole dashboard to this session: a new token for it.
    if (signedInAsThem) await this.sessions.rotate(req.dashboard!, res);
    this.views.redirect(
      res,
      signedInAsThem ? `${HOME}?notice=verified` : '/dashboard/sign-in?notice=verified',
    );
  }

  @Post('verify-email/resend')
  @DashboardUnverified()
  async resendVerification(@Req() req: DashboardRequest, @Res() res: Response): Promise<void> {
    const sent = await this.people.resendVerification(req.dashboard!.user.id);
    this.views.redirect(res, `/dashboard/verify-email?notice=verification-${sent}`);
  }

  @Get('forgot-password')
  @DashboardAnonymous()
  forgotPasswordPage(@Req() req: DashboardRequest, @Res() res: Response): void {
    this.views.send(res, req, 'forgot-password', { title: 'Reset your password' });
  }

  /** The same answer whether or not the email is a user's. */
  @Post('forgot-password')
  @DashboardAnonymous()
  async forgotPassword(
    @Req() req: DashboardRequest,
    @Res() res: Response,
    @Form() form: FormFields,
  ): Promise<void> {
    try {
      await this.people.requestPasswordReset(form.email ?? '');
      this.views.redirect(res, '/dashboard/sign-in?notice=reset-sent');
    } catch (error) {
      const state = FormState.refused(error, { email: form.email ?? '' });
      this.views.send(res, req, 'forgot-password', { title: 'Reset your password', form: state });
    }
  }

  @Get('reset-password')
  @DashboardAnonymous()
  async resetPasswordPage(@Req() req: DashboardRequest, @Res() res: Response): Promise<void> {
    const token = req.query.token;
    const usable = await this.people.tokenUsable('reset_password', token);
    this.views.send(
      res,
      req,
      'reset-password',
      { title: 'Choose a new password', token: usable ? token : undefined },
      usable ? 200 : 400,
    );
  }

  /** A reset ends every session of the user, this browser's included: sign in again. */
  @Post('reset-password')
  @DashboardAnonymous()
  async resetPassword(
    @Req() req: DashboardRequest,
    @Res() res: Response,
    @Form() form: FormFields,
  ): Promise<void> {
    try {
      await this.people.resetPassword(form.token, form.password ?? '', originOf(req));
      this.sessions.cookies.clearSession(res);
      this.views.redirect(res, '/dashboard/sign-in?notice=password-reset');
    } catch (error) {
      const state = FormState.refused(error, {});
      const tokenRefused = state.error('token') !== undefined;
      this.views.send(
        res,
        req,
        'reset-password',
        {
          title: 'Choose a new password',
          token: tokenRefused ? undefined : form.token,
          form: state,
        },
        tokenRefused ? 400 : 200,
      );
    }
  }

  @Post('sign-out')
  @DashboardUnverified()
  async signOut(@Req() req: DashboardRequest, @Res() res: Response): Promise<void> {
    await this.sessions.signOut(req.dashboard!, res);
    this.views.redirect(res, '/dashboard/sign-in?notice=signed-out');
  }

  @Post('sign-out-everywhere')
  @DashboardUnverified()
  async signOutEverywhere(@Req() req: DashboardRequest, @Res() res: Response): Promise<void> {
    await this.sessions.signOutEverywhere(req.dashboard!, res);
    this.views.redirect(res, '/dashboard/sign-in?notice=signed-out-everywhere');
  }
}
