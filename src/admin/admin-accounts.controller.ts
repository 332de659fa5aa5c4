import { Body, Controller, Delete, HttpCode, Post } from '@nestjs/common';
import { toAccountSummary, toApiKeySummary } from '../accounts/accounts.mapper';
import { AccountsService } from '../accounts/accounts.service';
import { ApiKeysService } from '../accounts/api-keys.service';
import { UuidParam } from '../common/http/uuid-param.decorator';
import { AdminApi } from './admin-token.guard';
import { CreateAccountDto } from './dto/create-account.dto';
import { CreateKeyDto } from './dto/create-key.dto';

/** Stands in for the dashboard: provisions accounts and keys. The CLI calls the same services. */
@AdminApi()
@Controller('admin')
export class AdminAccountsController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly apiKeys: ApiKeysService,
  ) {}

  @Post('accounts')
  async createAccount(@Body() dto: CreateAccountDto) {
    return toAccountSummary(await this.accounts.create(dto.name, dto.approve ?? false));
  }

  @Post('accounts/:id/approve')
  @HttpCode(200)
  async approve(@UuidParam('id', 'Account') id: string) {
    return toAccountSummary(await this.accounts.setStatus(id, 'APPROVED'));
  }

  @Post('accounts/:id/suspend')
  @HttpCode(200)
  async suspend(@UuidParam('id', 'Account') id: string) {
    return toAccountSummary(await this.accounts.setStatus(id, 'SUSPENDED'));
  }

  /** The only answer that ever contains the key. */
  @Post('accounts/:id/keys')
  async createKey(@UuidParam('id', 'Account') id: string, @Body() dto: CreateKeyDto) {
    const { record, key } = await this.apiKeys.create(id, dto);
    return { ...toApiKeySummary(record), accountId: record.accountId, key };
  }

  @Delete('keys/:id')
  async revokeKey(@UuidParam('id', 'API key') id: string) {
    const record = await this.apiKeys.revoke(id);
    return { ...toApiKeySummary(record), revokedAt: record.revokedAt!.toISOString() };
  }
}
