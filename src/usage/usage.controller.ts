import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Scopes } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { Operation } from '../common/http/operation.decorator';
import { UsageQueryDto } from './dto/usage-query.dto';
import { UsageResponse } from './dto/usage.response';
import { UsageService } from './usage.service';

@ApiTags('account')
@ApiBearerAuth()
@Controller('me')
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  /** Requests made with this key per UTC day and endpoint; a request shows up within 5 s. */
  @Get('usage')
  @Operation('getUsage', 'Daily API usage of the account', { 200: { data: 'Usage' } })
  @Scopes('account:read')
  usageOf(
    @CurrentPrincipal() principal: Principal,
    @Query() query: UsageQueryDto,
  ): Promise<UsageResponse> {
    return this.usage.summarize(principal.keyId, query.days);
  }
}
