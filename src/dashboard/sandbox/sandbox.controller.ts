import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { Response } from 'express';
import type { OwnerScope } from '../../auth/scope';
import { FieldError, NotFoundError, ValidationError } from '../../common/errors/domain-error';
import type { ListingResponse } from '../../listings/dto/listing.response';
import { FavoritedDto, MessageReceivedDto } from '../../listings/dto/listing-activity.dto';
import type { ListListingsQueryDto } from '../../listings/dto/list-listings.query.dto';
import { ListingsService } from '../../listings/listings.service';
import { TestHelpersService } from '../../test-helpers/test-helpers.service';
import { Dashboard, type DashboardContext, type DashboardRequest } from '../web/dashboard-context';
import { DashboardRole } from '../web/dashboard-metadata';
import { DashboardController } from '../web/dashboard-page.decorator';
import { Form, type FormFields, FormState } from '../web/form';
import { DashboardViews } from '../web/views';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SHOWN = 10;

/** The sandbox's actions, their button and the webhook event each one queues. */
export const SANDBOX_ACTIONS = {
  publish: { label: 'Publish', event: 'listing.updated' },
  expire: { label: 'Expire now', event: 'listing.expired' },
  message: { label: 'Send a buyer message', event: 'message.received' },
  favourite: { label: 'Favourite', event: 'listing.favorited' },
} as const;
type SandboxAction = keyof typeof SANDBOX_ACTIONS;

interface SandboxResult {
  action: SandboxAction;
  listing?: ListingResponse;
  event?: string;
  refused?: string;
}

/**
 * Sandbox (test mode): the account's test listings and, for one of them, the API's test helpers
 * (publish, expire, message, favourite) through TestHelpersService, each with its result.
 */
@DashboardController()
@Controller('dashboard/sandbox')
export class SandboxController {
  constructor(
    private readonly views: DashboardViews,
    private readonly listings: ListingsService,
    private readonly helpers: TestHelpersService,
  ) {}

  @Get()
  async page(@Req() req: DashboardRequest, @Res() res: Response): Promise<void> {
    const chosen = typeof req.query.listing === 'string' ? req.query.listing : undefined;
    await this.render(req, res, chosen, undefined, FormState.empty());
  }

  @Post('listings/:id/:action')
  @DashboardRole('owner', 'developer')
  async act(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @Param('id') id: string,
    @Param('action') action: string,
    @Form() form: FormFields,
  ): Promise<void> {
    // A live session, another account's or a live listing, an unknown action: 404.
    if (ctx.livemode || !UUID.test(id) || !Object.hasOwn(SANDBOX_ACTIONS, action))
      throw new NotFoundError('Listing');
    const scope: OwnerScope = { accountId: ctx.account.id, livemode: false };
    const which = action as SandboxAction;
    try {
      const listing = await this.run(scope, id, which, form);
      const result = { action: which, listing, event: SANDBOX_ACTIONS[which].event };
      await this.render(req, res, id, result, FormState.empty());
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const fieldOfForm = error.details?.some(
        (d) => d.field === 'preview' || d.field === 'userRef',
      );
      const state = fieldOfForm
        ? FormState.refused(error, { preview: form.preview ?? '', userRef: form.userRef ?? '' })
        : FormState.empty();
      const result = { action: which, refused: error.details?.[0]?.message ?? error.message };
      await this.render(req, res, id, result, state);
    }
  }

  private run(
    scope: OwnerScope,
    id: string,
    action: SandboxAction,
    form: FormFields,
  ): Promise<ListingResponse> {
    switch (action) {
      case 'publish':
        return this.helpers.publish(scope, id);
      case 'expire':
        return this.helpers.expire(scope, id);
      case 'message':
        return this.helpers.message(
          scope,
          id,
          checked(MessageReceivedDto, form.preview ? { preview: form.preview } : {}),
        );
      case 'favourite':
        return this.helpers.favorite(
          scope,
          id,
          checked(FavoritedDto, form.userRef ? { userRef: form.userRef } : {}),
        );
    }
  }

  private async render(
    req: DashboardRequest,
    res: Response,
    chosenId: string | undefined,
    result: SandboxResult | undefined,
    form: FormState,
  ): Promise<void> {
    const ctx = req.dashboard!;
    let listings: ListingResponse[] = [];
    let chosen: ListingResponse | undefined;
    if (!ctx.livemode) {
      const scope: OwnerScope = { accountId: ctx.account.id, livemode: false };
      const query = { page: 1, limit: SHOWN, sort: 'newest' } as ListListingsQueryDto;
      const page = await this.listings.list(scope, query);
      listings = rowsOf(page.items);
      if (chosenId && UUID.test(chosenId))
        chosen = await this.listings.get(scope, chosenId).catch((error: unknown) => {
          if (error instanceof NotFoundError) return undefined;
          throw error;
        });
      chosen ??= listings[0];
    }
    this.views.send(res, req, 'sandbox/index', {
      title: 'Sandbox',
      nav: 'sandbox',
      listings,
      chosen,
      result,
      actions: SANDBOX_ACTIONS,
      canAct: ctx.role !== 'viewer',
      form,
    });
  }
}

/** The API's DTO rules for the form's fields; a refusal as the API words it. */
function checked<T extends object>(type: new () => T, plain: Record<string, string>): T {
  const dto = plainToInstance(type, plain);
  const errors: FieldError[] = validateSync(dto, { forbidUnknownValues: false }).map((e) => ({
    field: e.property,
    message: Object.values(e.constraints ?? {})[0] ?? 'Invalid value.',
  }));
  if (errors.length > 0) throw new ValidationError(errors, errors[0].message);
  return dto;
}

function rowsOf(items: ListingResponse[] | { text: string }): ListingResponse[] {
  return Array.isArray(items) ? items : (JSON.parse(items.text) as ListingResponse[]);
}
