import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { toAccessRequestResponse } from '../access-requests/access-requests.mapper';
import { AccessRequestsService } from '../access-requests/access-requests.service';
import { ListAccessRequestsQueryDto } from '../access-requests/dto/list-access-requests.query.dto';
import { RejectAccessRequestDto } from '../access-requests/dto/reject-access-request.dto';
import { toAccountSummary } from '../accounts/accounts.mapper';
import type { AuditOrigin } from '../audit/audit-entry';
import { RequestOrigin } from '../audit/audit-origin.decorator';
import { UuidParam } from '../common/http/uuid-param.decorator';
import { CursorPage } from '../common/pagination/cursor-page';
import { AdminApi } from './admin-token.guard';

const REQUEST = 'Access request';

/** Staff decide access requests here (or with the CLI): the admin token is their credential. */
@AdminApi()
@Controller('admin/access-requests')
export class AdminAccessRequestsController {
  constructor(private readonly accessRequests: AccessRequestsService) {}

  /** Oldest first, optionally of one status (`?status=pending`), cursor paged with `after`. */
  @Get()
  async list(@Query() query: ListAccessRequestsQueryDto) {
    const page = await this.accessRequests.list(
      query.status ?? null,
      query.after ?? null,
      query.limit,
    );
    return new CursorPage(
      (page.items as Parameters<typeof toAccessRequestResponse>[0][]).map(toAccessRequestResponse),
      page.pagination,
    );
  }

  @Get(':id')
  async get(@UuidParam('id', REQUEST) id: string) {
    return toAccessRequestResponse(await this.accessRequests.get(id));
  }

  /** The account becomes APPROVED in the same transaction. */
  @Post(':id/approve')
  @HttpCode(200)
  async approve(@UuidParam('id', REQUEST) id: string, @RequestOrigin('admin') origin: AuditOrigin) {
    const { request, account } = await this.accessRequests.approve(id, origin);
    return { ...toAccessRequestResponse(request), account: toAccountSummary(account) };
  }

  @Post(':id/reject')
  @HttpCode(200)
  async reject(
    @UuidParam('id', REQUEST) id: string,
    @Body() dto: RejectAccessRequestDto,
    @RequestOrigin('admin') origin: AuditOrigin,
  ) {
    const { request, account } = await this.accessRequests.reject(id, dto.reason, origin);
    return { ...toAccessRequestResponse(request), account: toAccountSummary(account) };
  }
}
