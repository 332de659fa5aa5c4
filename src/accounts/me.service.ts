import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Principal } from '../auth/principal';
import {
  BULK_MAX_ITEMS,
  MAX_IMAGES,
  MAX_WEBHOOK_ENDPOINTS,
  PAGE_SIZE_MAX,
} from '../common/api-limits';
import type { AllConfig } from '../platform/config';
import { toAccountSummary, toApiKeySummary } from './accounts.mapper';
import { AccountsService } from './accounts.service';
import { ApiKeysService } from './api-keys.service';
import { MeResponse } from './dto/me.response';

@Injectable()
export class MeService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly apiKeys: ApiKeysService,
    private readonly config: ConfigService<AllConfig, true>,
  ) {}

  async describe(principal: Principal): Promise<MeResponse> {
    const [account, key] = await Promise.all([
      this.accounts.get(principal.accountId),
      this.apiKeys.get(principal.keyId),
    ]);
    const rateLimit = this.config.get('rateLimit', { infer: true });
    return {
      account: toAccountSummary(account),
      key: toApiKeySummary(key),
      limits: {
        readPerMinute: rateLimit.readPerMin,
        writePerMinute: rateLimit.writePerMin,
        bulkItemsPerRequest: BULK_MAX_ITEMS,
        imagesPerListing: MAX_IMAGES,
        webhookEndpoints: MAX_WEBHOOK_ENDPOINTS,
        pageSizeMax: PAGE_SIZE_MAX,
      },
    };
  }
}
