import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Scopes } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { Operation } from '../common/http/operation.decorator';
import { MeResponse } from './dto/me.response';
import { MeService } from './me.service';

@ApiTags('account')
@ApiBearerAuth()
@Controller('me')
export class MeController {
  constructor(private readonly me: MeService) {}

  /** The account and the API key making this request. */
  @Get()
  @Operation('getMe', 'Describe the account and API key', { 200: { data: 'Me' } })
  @Scopes('account:read')
  describe(@CurrentPrincipal() principal: Principal): Promise<MeResponse> {
    return this.me.describe(principal);
  }
}
