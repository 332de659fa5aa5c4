/** Who acted: a dashboard user, staff through the admin API or the CLI, a job, or an API key. */
export type AuditActorType = 'user' | 'admin' | 'cli' | 'system' | 'api_key';

export const AUDIT_ACTIONS = [
  'sign_in.succeeded',
  'sign_in.failed',
  'sign_in.locked',
  'password.changed',
  'password.reset',
  'member.invited',
  'member.changed',
  'member.removed',
  'access.requested',
  'access.approved',
  'access.rejected',
  'key.created',
  'key.rolled',
  'key.revoked',
  'endpoint.created',
  'endpoint.updated',
  'endpoint.deleted',
  'endpoint.secret_rotated',
  'endpoint.test_sent',
  'delivery.retried',
  'deliveries.recovered',
  'import.confirmed',
  'import.cancelled',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditActor {
  type: AuditActorType;
  /** the user's or the API key's id; none for `admin`, `cli` and `system` */
  id?: string | null;
}

/**
 * Who acts and from where: what each audited action takes from its door (the dashboard passes
 * `{ actor: { type: 'user', id }, ip, userAgent }`, the admin API `admin`, the CLI `cli`, the
 * public API the key).
 */
export interface AuditOrigin {
  actor: AuditActor;
  ip?: string | null;
  userAgent?: string | null;
}

export const CLI_ORIGIN: AuditOrigin = { actor: { type: 'cli' } };

/** One row of the append-only log. `details` never holds a secret, key or password. */
export interface AuditEntry {
  accountId: string | null;
  actor: AuditActor;
  action: AuditAction;
  target?: string | null;
  ip?: string | null;
  userAgent?: string | null;
  details?: Record<string, unknown>;
}

export interface AuditRecord {
  id: string;
  accountId: string | null;
  actorType: AuditActorType;
  actorId: string | null;
  action: AuditAction;
  target: string | null;
  ip: string | null;
  userAgent: string | null;
  details: Record<string, unknown>;
  createdAt: Date;
}
