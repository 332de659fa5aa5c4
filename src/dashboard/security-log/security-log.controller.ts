import { Controller, Get, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiKeysService } from '../../accounts/api-keys.service';
import type { AuditAction, AuditRecord } from '../../audit/audit-entry';
import { AuditService } from '../../audit/audit.service';
import { NotFoundError } from '../../common/errors/domain-error';
import { UsersStore } from '../users.store';
import type { DashboardRequest } from '../web/dashboard-context';
import { DashboardController } from '../web/dashboard-page.decorator';
import { DashboardViews } from '../web/views';

export const SECURITY_LOG_PAGE_SIZE = 25;
const CURSOR = /^[1-9][0-9]{0,18}$/;

/** Each audited action in words. */
export const ACTION_WORDS: Record<AuditAction, string> = {
  'sign_in.succeeded': 'Signed in',
  'sign_in.failed': 'Sign-in failed',
  'sign_in.locked': 'Sign-in locked after repeated failures',
  'password.changed': 'Password changed',
  'password.reset': 'Password reset',
  'member.invited': 'Member invited',
  'member.changed': 'Member role changed',
  'member.removed': 'Member removed',
  'access.requested': 'API access requested',
  'access.approved': 'API access approved',
  'access.rejected': 'API access rejected',
  'key.created': 'API key created',
  'key.rolled': 'API key rolled',
  'key.revoked': 'API key revoked',
  'endpoint.created': 'Webhook endpoint created',
  'endpoint.updated': 'Webhook endpoint updated',
  'endpoint.deleted': 'Webhook endpoint deleted',
  'endpoint.secret_rotated': 'Webhook secret rotated',
  'endpoint.test_sent': 'Webhook test sent',
  'delivery.retried': 'Webhook delivery retried',
  'deliveries.recovered': 'Webhook deliveries recovered',
  'import.confirmed': 'Import confirmed',
  'import.cancelled': 'Import cancelled',
};

interface LogRow {
  id: string;
  at: Date;
  actor: string;
  action: string;
  target: string;
  ip: string;
  userAgent: string;
}

/**
 * The security log: the account's audit log, newest first, 25 a page with Older/Newer links
 * (`?before=<id>`). Every member reads it.
 */
@DashboardController()
@Controller('dashboard')
export class SecurityLogController {
  constructor(
    private readonly views: DashboardViews,
    private readonly audit: AuditService,
    private readonly users: UsersStore,
    private readonly keys: ApiKeysService,
  ) {}

  @Get(['security', 'security-log'])
  async page(@Req() req: DashboardRequest, @Res() res: Response): Promise<void> {
    const ctx = req.dashboard!;
    const before = cursorOf(req.query.before);
    const page = await this.audit.page(ctx.account.id, SECURITY_LOG_PAGE_SIZE, before);
    this.views.send(res, req, 'security/index', {
      title: 'Security log',
      nav: 'security-log',
      rows: await this.describe(page.items),
      older: page.nextCursor,
      // Newer: the 25 rows above this page's newest (none on the first page).
      newer:
        before === null
          ? undefined
          : await this.audit.newerCursor(
              ctx.account.id,
              SECURITY_LOG_PAGE_SIZE,
              page.items[0]?.id ?? String(BigInt(before) - 1n),
            ),
    });
  }

  private async describe(items: AuditRecord[]): Promise<LogRow[]> {
    const userIds = [
      ...new Set(items.filter((r) => r.actorType === 'user' && r.actorId).map((r) => r.actorId!)),
    ];
    const emails = await this.users.emailsOf(userIds);
    const prefixes = new Map<string, string>();
    for (const keyId of new Set(
      items.filter((r) => r.actorType === 'api_key' && r.actorId).map((r) => r.actorId!),
    )) {
      const prefix = await this.keys.get(keyId).then(
        (key) => key.prefix,
        (error: unknown) => {
          if (error instanceof NotFoundError) return null;
          throw error;
        },
      );
      if (prefix) prefixes.set(keyId, prefix);
    }
    return items.map((r) => ({
      id: r.id,
      at: r.createdAt,
      actor: actorName(r, emails, prefixes),
      action: ACTION_WORDS[r.action] ?? r.action,
      target: r.target ?? '',
      ip: r.ip ?? '',
      userAgent: r.userAgent ?? '',
    }));
  }
}

function actorName(
  r: AuditRecord,
  emails: Map<string, string>,
  prefixes: Map<string, string>,
): string {
  switch (r.actorType) {
    case 'user':
      return (r.actorId && emails.get(r.actorId)) ?? 'a removed user';
    case 'admin':
      return 'staff';
    case 'cli':
      return 'CLI';
    case 'system':
      return 'system';
    case 'api_key':
      return `API key ${(r.actorId && prefixes.get(r.actorId)) ?? ''}`.trim();
  }
}

function cursorOf(value: unknown): string | null {
  return typeof value === 'string' && CURSOR.test(value) ? value : null;
}
