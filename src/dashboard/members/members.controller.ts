import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ValidationError } from '../../common/errors/domain-error';
import { DashboardSessionsService } from '../dashboard-sessions.service';
import { DashboardSessionsStore } from '../dashboard-sessions.store';
import { ROLES } from '../security/roles';
import { Dashboard, type DashboardContext, type DashboardRequest } from '../web/dashboard-context';
import { DashboardRole } from '../web/dashboard-metadata';
import { DashboardController } from '../web/dashboard-page.decorator';
import { Form, type FormFields, FormState } from '../web/form';
import { originOf } from '../web/origin';
import { DashboardViews } from '../web/views';
import { MemberActor, MembersService } from './members.service';

const PAGE = '/dashboard/members';

const NOTICES: Record<string, string> = {
  invited: 'The invitation is sent. It works for 7 days.',
  'invitation-revoked': 'The invitation is revoked.',
  'role-changed': 'The role is changed.',
  removed: 'The member is removed and signed out of this account.',
};

/** Members: owners invite, change roles and remove; every member sees the list. */
@DashboardController()
@Controller('dashboard')
export class MembersController {
  constructor(
    private readonly views: DashboardViews,
    private readonly members: MembersService,
    private readonly sessions: DashboardSessionsService,
    private readonly sessionsStore: DashboardSessionsStore,
  ) {}

  @Get('members')
  async page(@Req() req: DashboardRequest, @Res() res: Response): Promise<void> {
    await this.render(req, res, FormState.empty(), null);
  }

  @Post('members/invitations')
  @DashboardRole('owner')
  async invite(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @Form() form: FormFields,
  ): Promise<void> {
    try {
      await this.members.invite(actorOf(ctx, req), form.email ?? '', form.role ?? '');
      this.views.redirect(res, `${PAGE}?done=invited`);
    } catch (error) {
      const state = FormState.refused(error, { email: form.email ?? '', role: form.role ?? '' });
      await this.render(req, res, state, 'invite');
    }
  }

  @Post('members/invitations/:id/revoke')
  @DashboardRole('owner')
  async revokeInvitation(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @Param('id') id: string,
  ): Promise<void> {
    await this.members.revokeInvitation(actorOf(ctx, req), id);
    this.views.redirect(res, `${PAGE}?done=invitation-revoked`);
  }

  /** A new role; the signed-in user's own change is a privilege change (a new session token). */
  @Post('members/:userId/role')
  @DashboardRole('owner')
  async changeRole(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @Param('userId') userId: string,
    @Form() form: FormFields,
  ): Promise<void> {
    try {
      const changed = await this.members.changeRole(actorOf(ctx, req), userId, form.role ?? '');
      if (changed && userId === ctx.user.id) await this.sessions.rotate(ctx, res);
      this.views.redirect(res, `${PAGE}?done=role-changed`);
    } catch (error) {
      await this.render(req, res, refusedFor(error, userId, 'role'), userId);
    }
  }

  /** Removes a member; removing oneself (leaving) ends this session too. */
  @Post('members/:userId/remove')
  @DashboardRole('owner')
  async remove(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @Param('userId') userId: string,
  ): Promise<void> {
    try {
      await this.members.remove(actorOf(ctx, req), userId);
      if (userId === ctx.user.id) {
        this.sessions.cookies.clearSession(res);
        return this.views.redirect(res, '/dashboard/sign-in');
      }
      this.views.redirect(res, `${PAGE}?done=removed`);
    } catch (error) {
      await this.render(req, res, refusedFor(error, userId, 'remove'), userId);
    }
  }

  /** The invitation link of the mail, for a user who already has a sign-in: a button accepts. */
  @Get('invitation')
  async invitationPage(@Req() req: DashboardRequest, @Res() res: Response): Promise<void> {
    const ctx = req.dashboard!;
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const invitation = await this.members.invitationFor(token, ctx.user.email);
    this.views.send(res, req, 'members/invitation', {
      title: 'Accept an invitation',
      token,
      valid: invitation !== null,
    });
  }

  /** Joins the inviting account and moves the session there (a new session token). */
  @Post('invitation')
  async accept(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @Form() form: FormFields,
  ): Promise<void> {
    const accountId = await this.members.accept(form.token, ctx.user.id, ctx.user.email);
    if (!accountId)
      return this.views.send(res, req, 'members/invitation', {
        title: 'Accept an invitation',
        token: '',
        valid: false,
      });
    await this.sessionsStore.setAccount(ctx.session.id, accountId);
    await this.sessions.rotate(ctx, res);
    this.views.redirect(res, '/dashboard');
  }

  private async render(
    req: DashboardRequest,
    res: Response,
    form: FormState,
    formFor: string | null,
  ): Promise<void> {
    const ctx = req.dashboard!;
    const [members, invitations] = await Promise.all([
      this.members.members(ctx.account.id),
      ctx.role === 'owner' ? this.members.invitations(ctx.account.id) : Promise.resolve([]),
    ]);
    const done = typeof req.query.done === 'string' ? NOTICES[req.query.done] : undefined;
    this.views.send(res, req, 'members/index', {
      title: 'Members',
      nav: 'members',
      members,
      invitations,
      roles: ROLES,
      canManage: ctx.role === 'owner',
      done,
      form,
      formFor,
    });
  }
}

function actorOf(ctx: DashboardContext, req: DashboardRequest): MemberActor {
  return {
    userId: ctx.user.id,
    accountId: ctx.account.id,
    accountName: ctx.account.name,
    origin: originOf(req),
  };
}

/** A refused change of one member's row: the error beside that row's control. */
function refusedFor(error: unknown, userId: string, control: 'role' | 'remove'): FormState {
  if (!(error instanceof ValidationError)) throw error;
  const message = error.details?.[0]?.message ?? error.message;
  return FormState.withError({}, `${control}-${userId}`, message);
}
