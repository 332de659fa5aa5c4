import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { NotFoundError } from '../../common/errors/domain-error';
import { validateDto } from '../../common/http/validation.pipe';
import type { ImportResponse } from '../../imports/dto/import.response';
import { ImportResultsQueryDto } from '../../imports/dto/import-results.query.dto';
import { ListImportsQueryDto } from '../../imports/dto/list-imports.query.dto';
import { ImportsService } from '../../imports/imports.service';
import { IMPORT_OUTCOMES, IMPORT_STATUSES, UNFINISHED } from '../../imports/dto/import-choices';
import { Dashboard, type DashboardContext, type DashboardRequest } from '../web/dashboard-context';
import { DashboardRole } from '../web/dashboard-metadata';
import { DashboardController } from '../web/dashboard-page.decorator';
import { filledFields, FormState, queryText } from '../web/form';
import { scopeOf, userOrigin } from '../web/origin';
import { DashboardViews } from '../web/views';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LIST_PAGE_SIZE = 20;
const RESULTS_PAGE_SIZE = 50;
/** Planned removals shown on a held import's page (the download lists them all). */
const PLANNED_SHOWN = 100;
/** The results filter: failed lines unless the reader asks for another outcome or all. */
const DEFAULT_OUTCOME = 'failed';

/** What a redirect after confirm or cancel may say (`?done=`): fixed texts only. */
const DONE: Record<string, string> = {
  confirmed: 'The import is confirmed: it runs in full, removals included.',
  cancelled: 'The import is cancelled.',
  'cancel-asked': 'The import stops at its next commit.',
};

const isFinished = (i: ImportResponse) => !UNFINISHED.includes(i.status);

/**
 * Imports of the session's account and mode, through ImportsService as /v1/imports: the list, an
 * import's page with live progress (a fragment htmx polls every 2 s until it ends), a held mirror
 * import's planned removals with Confirm and Cancel (the service audits both), results filtered
 * by outcome with cursor paging, and the results download (the API's NDJSON).
 */
@DashboardController()
@Controller('dashboard/imports')
export class ImportsPageController {
  constructor(
    private readonly views: DashboardViews,
    private readonly imports: ImportsService,
  ) {}

  @Get()
  async list(
    @Dashboard() ctx: DashboardContext,
    @Req() req: DashboardRequest,
    @Res() res: Response,
  ): Promise<void> {
    const values = { status: queryText(req.query.status), page: queryText(req.query.page) };
    const common = { title: 'Imports', nav: 'imports', statuses: IMPORT_STATUSES, values };
    let query: ListImportsQueryDto;
    try {
      query = await validateDto(
        ListImportsQueryDto,
        filledFields({ ...values, limit: String(LIST_PAGE_SIZE) }),
      );
    } catch (error) {
      return this.views.send(
        res,
        req,
        'imports/list',
        { ...common, form: FormState.refused(error, values) },
        400,
      );
    }
    const page = await this.imports.list(scopeOf(ctx), query);
    this.views.send(res, req, 'imports/list', {
      ...common,
      form: FormState.empty(values),
      imports: page.items,
      pagination: page.pagination,
    });
  }

  @Get(':id')
  async detail(
    @Dashboard() ctx: DashboardContext,
    @Req() req: DashboardRequest,
    @Res() res: Response,
    @Param('id') id: string,
  ): Promise<void> {
    const found = await this.find(ctx, id);
    const done = DONE[queryText(req.query.done)];
    await this.sendDetail(ctx, req, res, found, { notice: done });
  }

  /** The progress region alone: polled by htmx every 2 s while the import is unfinished. */
  @Get(':id/progress')
  async progress(
    @Dashboard() ctx: DashboardContext,
    @Req() req: DashboardRequest,
    @Res() res: Response,
    @Param('id') id: string,
  ): Promise<void> {
    const found = await this.find(ctx, id);
    res
      .status(200)
      .type('html')
      .send(
        this.views.render(req, 'imports/progress', {
          title: 'Import progress',
          imp: found,
          finished: isFinished(found),
        }),
      );
  }

  /** Every result the outcome filter selects, as GET /v1/imports/:id/results gives NDJSON. */
  @Get(':id/results.ndjson')
  async download(
    @Dashboard() ctx: DashboardContext,
    @Req() req: DashboardRequest,
    @Res() res: Response,
    @Param('id') id: string,
  ): Promise<void> {
    const found = await this.find(ctx, id);
    const outcome = queryText(req.query.outcome);
    const query = await validateDto(ImportResultsQueryDto, filledFields({ outcome }));
    const lines = await this.imports.resultLines(scopeOf(ctx), found.id, query);
    res.status(200);
    res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
    const name = `import-${found.id}-results${outcome ? `-${outcome}` : ''}.ndjson`;
    res.setHeader('Content-Disposition', `attachment; filename="${name}"`);
    lines.on('error', (error) => res.destroy(error));
    lines.pipe(res);
  }

  @Post(':id/confirm')
  @DashboardRole('owner', 'developer')
  async confirm(
    @Dashboard() ctx: DashboardContext,
    @Req() req: DashboardRequest,
    @Res() res: Response,
    @Param('id') id: string,
  ): Promise<void> {
    const found = await this.find(ctx, id);
    try {
      await this.imports.confirm(scopeOf(ctx), found.id, userOrigin(req, ctx));
    } catch (error) {
      return this.refused(ctx, req, res, found.id, error);
    }
    this.views.redirect(res, `/dashboard/imports/${found.id}?done=confirmed`);
  }

  @Post(':id/cancel')
  @DashboardRole('owner', 'developer')
  async cancel(
    @Dashboard() ctx: DashboardContext,
    @Req() req: DashboardRequest,
    @Res() res: Response,
    @Param('id') id: string,
  ): Promise<void> {
    const found = await this.find(ctx, id);
    let after: ImportResponse;
    try {
      after = await this.imports.cancel(scopeOf(ctx), found.id, userOrigin(req, ctx));
    } catch (error) {
      return this.refused(ctx, req, res, found.id, error);
    }
    const done = after.status === 'cancelled' ? 'cancelled' : 'cancel-asked';
    this.views.redirect(res, `/dashboard/imports/${found.id}?done=${done}`);
  }

  /** A confirm or cancel the import's state no longer allows: its page, with the reason. */
  private async refused(
    ctx: DashboardContext,
    req: DashboardRequest,
    res: Response,
    id: string,
    error: unknown,
  ): Promise<void> {
    const form = FormState.refused(error, {});
    const current = await this.find(ctx, id);
    await this.sendDetail(ctx, req, res, current, { form }, 409);
  }

  private async sendDetail(
    ctx: DashboardContext,
    req: DashboardRequest,
    res: Response,
    found: ImportResponse,
    extra: { notice?: string; form?: FormState },
    status = 200,
  ): Promise<void> {
    const scope = scopeOf(ctx);
    const outcome =
      req.query.outcome === undefined ? DEFAULT_OUTCOME : queryText(req.query.outcome);
    const values = { outcome, after: queryText(req.query.after) };
    let form = extra.form ?? FormState.empty(values);
    let results: Awaited<ReturnType<ImportsService['results']>> | undefined;
    try {
      const query = await validateDto(
        ImportResultsQueryDto,
        filledFields({ ...values, limit: String(RESULTS_PAGE_SIZE) }),
      );
      results = await this.imports.results(scope, found.id, query);
    } catch (error) {
      form = FormState.refused(error, values);
      if (status === 200) status = 400;
    }
    const planned =
      found.status === 'held'
        ? await this.imports.results(
            scope,
            found.id,
            await validateDto(ImportResultsQueryDto, {
              outcome: 'removed',
              limit: String(PLANNED_SHOWN),
            }),
          )
        : undefined;
    const canWrite = ctx.role === 'owner' || ctx.role === 'developer';
    this.views.send(
      res,
      req,
      'imports/detail',
      {
        title: `Import ${found.id.slice(0, 8)}`,
        nav: 'imports',
        imp: found,
        finished: isFinished(found),
        results,
        planned,
        outcomes: IMPORT_OUTCOMES,
        values,
        form,
        notice: extra.notice,
        canWrite,
        canCancel: canWrite && !isFinished(found),
      },
      status,
    );
  }

  /** The import within the session's account and mode; anything else (a foreign id) is a 404. */
  private async find(ctx: DashboardContext, id: string): Promise<ImportResponse> {
    if (!UUID.test(id)) throw new NotFoundError('Import');
    return this.imports.get(scopeOf(ctx), id);
  }
}
