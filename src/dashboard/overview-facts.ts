import { Injectable } from '@nestjs/common';
import type { AccessRequest } from '../access-requests/access-request';
import { AccessRequestsService } from '../access-requests/access-requests.service';
import { ApiKeysService } from '../accounts/api-keys.service';
import type { OwnerScope } from '../auth/scope';
import { ListImportsQueryDto } from '../imports/dto/list-imports.query.dto';
import { ImportsService } from '../imports/imports.service';
import { UsageService } from '../usage/usage.service';
import { WebhookEndpointsService } from '../webhooks/endpoints/webhook-endpoints.service';

const WEEK_MS = 7 * 24 * 3_600_000;

/** What the overview shows of the account in one mode, each read through its own service. */
export interface OverviewFacts {
  request: AccessRequest | null;
  today: { requests: number; errors: number };
  disabledEndpoints: number;
  heldImports: number;
  /** this mode's keys that stop working within 7 days (rolled, not yet expired or revoked) */
  expiringKeys: { id: string; name: string; expiresAt: Date }[];
}

@Injectable()
export class OverviewFactsReader {
  constructor(
    private readonly access: AccessRequestsService,
    private readonly usage: UsageService,
    private readonly endpoints: WebhookEndpointsService,
    private readonly imports: ImportsService,
    private readonly keys: ApiKeysService,
  ) {}

  async read(scope: OwnerScope, now = new Date()): Promise<OverviewFacts> {
    const held = Object.assign(new ListImportsQueryDto(), { status: 'held', page: 1, limit: 1 });
    const [request, today, endpoints, imports, keys] = await Promise.all([
      this.access.current(scope.accountId),
      this.usage.today(scope, now),
      this.endpoints.list(scope),
      this.imports.list(scope, held),
      this.keys.list(scope.accountId),
    ]);
    const kind = scope.livemode ? 'live' : 'test';
    const until = now.getTime() + WEEK_MS;
    return {
      request,
      today,
      disabledEndpoints: endpoints.filter((e) => !e.isActive && e.disabledAt !== null).length,
      heldImports: imports.pagination.total,
      expiringKeys: keys
        .filter(
          (k) =>
            k.kind === kind &&
            !k.revokedAt &&
            k.expiresAt !== null &&
            k.expiresAt.getTime() > now.getTime() &&
            k.expiresAt.getTime() <= until,
        )
        .map((k) => ({ id: k.id, name: k.name, expiresAt: k.expiresAt! })),
    };
  }
}
