import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { AuthenticatedRequest } from '../auth/auth.decorators';
import type { AuditOrigin } from './audit-entry';

/** A user agent is kept to this many characters: enough to recognise, never a payload. */
const USER_AGENT_MAX = 300;

/**
 * The audit origin of an HTTP request: the API key that made it (public API) or `admin` (admin
 * API, `@RequestOrigin('admin')`), with the caller's address and user agent.
 */
export const RequestOrigin = createParamDecorator(
  (door: 'api_key' | 'admin' | undefined, ctx: ExecutionContext): AuditOrigin => {
    const req = ctx.switchToHttp().getRequest<AuthenticatedRequest>();
    const from = {
      ip: req.ip ?? null,
      userAgent: req.get('user-agent')?.slice(0, USER_AGENT_MAX) ?? null,
    };
    if (door === 'admin') return { actor: { type: 'admin' }, ...from };
    if (!req.principal) throw new Error('RequestOrigin used on a route without an API key');
    return { actor: { type: 'api_key', id: req.principal.keyId }, ...from };
  },
);
