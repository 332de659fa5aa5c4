import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { EXPECTED_LISTINGS, type AccessRequest } from '../../access-requests/access-request';
import { AccessRequestsService } from '../../access-requests/access-requests.service';
import { SubmitAccessRequestDto } from '../../access-requests/dto/submit-access-request.dto';
import { validateDto } from '../../common/http/validation.pipe';
import { Dashboard, type DashboardContext, type DashboardRequest } from '../web/dashboard-context';
import { DashboardRole } from '../web/dashboard-metadata';
import { DashboardController } from '../web/dashboard-page.decorator';
import { Form, type FormFields, FormState } from '../web/form';
import { originOf } from '../web/origin';
import { DashboardViews } from '../web/views';

const FIELDS = [
  'legalName',
  'organisationNumber',
  'website',
  'integrationDescription',
  'expectedListings',
] as const;

/** The values a form shows again: the request's, when it is being edited. */
function valuesOf(request: AccessRequest | null): Record<string, string> {
  if (!request || request.status !== 'pending') return {};
  return {
    legalName: request.legalName,
    organisationNumber: request.organisationNumber,
    website: request.website,
    integrationDescription: request.integrationDescription,
    expectedListings: request.expectedListings,
    termsAccepted: request.termsAccepted ? 'yes' : '',
  };
}

/**
 * Access request: a PENDING account's owner asks for API access (one open request, editable
 * until staff decide; a rejected account sends a new one). Developers and viewers see the status.
 */
@DashboardController()
@Controller('dashboard/access')
export class AccessController {
  constructor(
    private readonly views: DashboardViews,
    private readonly access: AccessRequestsService,
  ) {}

  @Get()
  async page(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
  ): Promise<void> {
    const request = await this.access.current(ctx.account.id);
    this.render(req, res, ctx, request, FormState.empty(valuesOf(request)));
  }

  /** Sends the request, or changes the open one. Owners only, while the account is PENDING. */
  @Post()
  @DashboardRole('owner')
  async submit(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @Form() form: FormFields,
  ): Promise<void> {
    const values: Record<string, string> = {};
    for (const name of FIELDS) values[name] = form[name] ?? '';
    values.termsAccepted = form.termsAccepted === 'yes' ? 'yes' : '';
    const current = await this.access.current(ctx.account.id);
    try {
      const input = await validateDto(SubmitAccessRequestDto, {
        ...values,
        termsAccepted: values.termsAccepted === 'yes',
      });
      if (current?.status === 'pending') {
        await this.access.update(ctx.account.id, input);
        return this.views.redirect(res, '/dashboard/access?notice=access-updated');
      }
      await this.access.submit(ctx.account.id, input, {
        ...originOf(req),
        actor: { type: 'user', id: ctx.user.id },
      });
      this.views.redirect(res, '/dashboard/access?notice=access-requested');
    } catch (error) {
      this.render(req, res, ctx, current, FormState.refused(error, values));
    }
  }

  private render(
    req: DashboardRequest,
    res: Response,
    ctx: DashboardContext,
    request: AccessRequest | null,
    form: FormState,
  ): void {
    const canSend =
      ctx.role === 'owner' &&
      ctx.account.status === 'PENDING' &&
      (request === null || request.status !== 'approved');
    this.views.send(res, req, 'access/access', {
      title: 'API access',
      request,
      canSend,
      editing: request?.status === 'pending',
      choices: EXPECTED_LISTINGS,
      form,
    });
  }
}
