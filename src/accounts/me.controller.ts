import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Scopes } from '../common/auth/auth.decorators';
import type { Principal } from '../common/auth/principal';
import { UsageQueryDto } from '../usage/dto/usage-query.dto';
import { UsageResponse } from '../usage/dto/usage.response';
import { UsageService } from '../usage/usage.service';
import { MeResponse } from './dto/me.response';
import { MeService } from './me.service';

@ApiTags('account')
@ApiBearerAuth()
@Controller('me')
export class MeController {
  constructor(
    private readonly me: MeService,
    private readonly usage: UsageService,
  ) {}

  /** The account and the API key making this request. */
  @Get()
  @Scopes('account:read')
  describe(@CurrentPrincipal() principal: Principal): Promise<MeResponse> {
    return this.me.describe(principal);
  }

  /** Requests made with this key per UTC day and endpoint; a request shows up within 5 s. */
  @Get('usage')
  @Scopes('account:read')
  usageOf(
    @CurrentPrincipal() principal: Principal,
    @Query() query: UsageQueryDto,
  ): Promise<UsageResponse> {
    return this.usage.summarize(principal.keyId, query.days);
  }
}
