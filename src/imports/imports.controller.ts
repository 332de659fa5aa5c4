import type { AuditOrigin } from '../audit/audit-entry';
import { RequestOrigin } from '../audit/audit-origin.decorator';
import { Controller, Get, HttpCode, Post, Query, Req, Res, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiConsumes, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, Scopes } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { ownerScopeOf } from '../auth/scope';
import { Operation } from '../common/http/operation.decorator';
import { validateDto } from '../common/http/validation.pipe';
import { UuidParam } from '../common/http/uuid-param.decorator';
import { CursorPage } from '../common/pagination/cursor-page';
import { Paginated } from '../common/pagination/paginated';
import { ApiIdempotencyKey, IdempotencyKey } from '../idempotency/idempotency-key.decorator';
import { sendIdempotent } from '../idempotency/idempotent-response';
import { CreateImportQueryDto } from './dto/create-import.query.dto';
import { ImportResponse, ImportResultResponse } from './dto/import.response';
import { ImportResultsQueryDto } from './dto/import-results.query.dto';
import { ImportSourceDto } from './dto/import-source.dto';
import { ListImportsQueryDto } from './dto/list-imports.query.dto';
import { ImportsService } from './imports.service';

const IMPORT = 'Import';
const NDJSON = 'application/x-ndjson';

@ApiTags('imports')
@ApiBearerAuth()
@Controller('imports')
export class ImportsController {
  constructor(private readonly imports: ImportsService) {}

  /**
   * The feed as the body (NDJSON or CSV, optionally gzip), or `{sourceUrl, format}` as JSON for
   * the worker to fetch. Answers 202 once the file is stored; a worker then runs the import.
   */
  @Post()
  @Operation('createImport', 'Start an import from a feed file or URL', { 202: { data: 'Import' } })
  @HttpCode(202)
  @Scopes('listings:write')
  @ApiIdempotencyKey()
  @ApiConsumes(NDJSON, 'text/csv', 'application/json')
  async create(
    @CurrentPrincipal() principal: Principal,
    @Query() query: CreateImportQueryDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ImportResponse> {
    const source = req.is('application/json')
      ? await validateDto(ImportSourceDto, req.body)
      : {
          contentType: req.headers['content-type'],
          contentEncoding: req.headers['content-encoding'],
          contentLength: Number(req.headers['content-length'] ?? 0) || undefined,
          body: req,
        };
    const outcome = await this.imports.create(
      ownerScopeOf(principal),
      query,
      source,
      idempotencyKey,
    );
    if (outcome.data) res.setHeader('Location', `/v1/imports/${outcome.data.id}`);
    return sendIdempotent(res, outcome);
  }

  /** Newest first. */
  @Get()
  @Operation('listImports', 'List imports, newest first', { 200: { page: 'Import' } })
  @Scopes('listings:read')
  list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListImportsQueryDto,
  ): Promise<Paginated<ImportResponse>> {
    return this.imports.list(ownerScopeOf(principal), query);
  }

  @Get(':id')
  @Operation('getImport', 'Get an import and its counts', { 200: { data: 'Import' } })
  @Scopes('listings:read')
  get(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', IMPORT) id: string,
  ): Promise<ImportResponse> {
    return this.imports.get(ownerScopeOf(principal), id);
  }

  /**
   * Each line's outcome in line order, removals last, with cursor pagination. With
   * `Accept: application/x-ndjson`, every result the filters select (`outcome`, `after`) as
   * NDJSON in one answer (no envelope, no `limit`).
   */
  @Get(':id/results')
  @Operation('listImportResults', "Each line's outcome (JSON pages or one NDJSON download)", {
    200: { cursor: 'ImportResult' },
  })
  @Scopes('listings:read')
  async results(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', IMPORT) id: string,
    @Query() query: ImportResultsQueryDto,
    @Req() req: Request,
  ): Promise<CursorPage<ImportResultResponse> | StreamableFile> {
    const scope = ownerScopeOf(principal);
    // Negotiated with q-values; JSON when both are as welcome, or nothing is asked for.
    if (req.accepts(['application/json', NDJSON]) !== NDJSON)
      return this.imports.results(scope, id, query);
    const lines = await this.imports.resultLines(scope, id, query);
    return new StreamableFile(lines, { type: `${NDJSON}; charset=utf-8` });
  }

  /** A queued or held import ends at once; a running one stops at its next commit. */
  @Post(':id/cancel')
  @Operation('cancelImport', 'Cancel a queued, held or running import', { 200: { data: 'Import' } })
  @HttpCode(200)
  @Scopes('listings:write')
  cancel(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', IMPORT) id: string,
    @RequestOrigin() origin: AuditOrigin,
  ): Promise<ImportResponse> {
    return this.imports.cancel(ownerScopeOf(principal), id, origin);
  }

  /** Runs a held mirror import in full, removals included. */
  @Post(':id/confirm')
  @Operation('confirmImport', 'Run a held mirror import in full', { 200: { data: 'Import' } })
  @HttpCode(200)
  @Scopes('listings:write')
  confirm(
    @CurrentPrincipal() principal: Principal,
    @UuidParam('id', IMPORT) id: string,
    @RequestOrigin() origin: AuditOrigin,
  ): Promise<ImportResponse> {
    return this.imports.confirm(ownerScopeOf(principal), id, origin);
  }
}
