import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { AccessRequestsService } from '../access-requests/access-requests.service';
import { toAccountSummary, toApiKeySummary } from '../accounts/accounts.mapper';
import { AccountsService } from '../accounts/accounts.service';
import { ApiKeysService } from '../accounts/api-keys.service';
import { keyRollGraceMs } from '../accounts/key-roll-grace';
import type { AuditOrigin } from '../audit/audit-entry';
import { RequestOrigin } from '../audit/audit-origin.decorator';
import { AuditService } from '../audit/audit.service';
import { UuidParam } from '../common/http/uuid-param.decorator';
import { CursorPage } from '../common/pagination/cursor-page';
import { AdminApi } from './admin-token.guard';
import { AuditQueryDto } from './dto/audit-query.dto';
import { CreateAccountDto } from './dto/create-account.dto';
import { CreateKeyDto } from '../accounts/dto/create-key.dto';
import { RollKeyDto } from './dto/roll-key.dto';

/** Stands in for the dashboard: provisions accounts and keys. The CLI calls the same services. */
@AdminApi()
@Controller('admin')
export class AdminAccountsController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly apiKeys: ApiKeysService,
    private readonly accessRequests: AccessRequestsService,
    private readonly audit: AuditService,
  ) {}

  @Post('accounts')
  async createAccount(@Body() dto: CreateAccountDto) {
    return toAccountSummary(await this.accounts.create(dto.name, dto.approve ?? false));
  }

  /** Approves the account and closes its open access request, if any, as approved. */
  @Post('accounts/:id/approve')
  @HttpCode(200)
  async approve(
    @UuidParam('id', 'Account') id: string,
    @RequestOrigin('admin') origin: AuditOrigin,
  ) {
    return toAccountSummary((await this.accessRequests.approveAccount(id, origin)).account);
  }

  @Post('accounts/:id/suspend')
  @HttpCode(200)
  async suspend(@UuidParam('id', 'Account') id: string) {
    return toAccountSummary(await this.accounts.setStatus(id, 'SUSPENDED'));
  }

  /** The account's audit log, newest first. */
  @Get('accounts/:id/audit')
  async auditLog(@UuidParam('id', 'Account') id: string, @Query() query: AuditQueryDto) {
    await this.accounts.get(id);
    const page = await this.audit.page(id, query.limit, query.after ?? null);
    return new CursorPage(
      page.items.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })),
      { limit: query.limit, hasMore: page.nextCursor !== null, nextCursor: page.nextCursor },
    );
  }

  /** The account's keys, newest first, without the keys themselves. */
  @Get('accounts/:id/keys')
  async listKeys(@UuidParam('id', 'Account') id: string) {
    await this.accounts.get(id);
    return (await this.apiKeys.list(id)).map((key) => ({
      ...toApiKeySummary(key),
      revokedAt: key.revokedAt?.toISOString() ?? null,
    }));
  }

  /** The only answer that ever contains the key. */
  @Post('accounts/:id/keys')
  async createKey(
    @UuidParam('id', 'Account') id: string,
    @Body() dto: CreateKeyDto,
    @RequestOrigin('admin') origin: AuditOrigin,
  ) {
    const { record, key } = await this.apiKeys.create(id, dto, origin);
    return { ...toApiKeySummary(record), accountId: record.accountId, key };
  }

  /** A new key like the old one (shown once); the old one stops working after the grace. */
  @Post('keys/:id/roll')
  @HttpCode(200)
  async rollKey(
    @UuidParam('id', 'API key') id: string,
    @Body() dto: RollKeyDto,
    @RequestOrigin('admin') origin: AuditOrigin,
  ) {
    const { accountId } = await this.apiKeys.get(id);
    const { record, key, rolled } = await this.apiKeys.roll(
      accountId,
      id,
      keyRollGraceMs(dto.grace),
      origin,
    );
    return {
      ...toApiKeySummary(record),
      accountId,
      key,
      rolled: toApiKeySummary(rolled),
    };
  }

  @Delete('keys/:id')
  async revokeKey(
    @UuidParam('id', 'API key') id: string,
    @RequestOrigin('admin') origin: AuditOrigin,
  ) {
    const record = await this.apiKeys.revoke(id, origin);
    return { ...toApiKeySummary(record), revokedAt: record.revokedAt!.toISOString() };
  }
}
