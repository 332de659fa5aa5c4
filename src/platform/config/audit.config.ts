import { registerAs } from '@nestjs/config';
import { IsDuration, parseDuration } from './config-transforms';
import { validateConfig } from './validate-config';

class AuditEnv {
  @IsDuration() AUDIT_RETENTION: string = '400d';
}

export interface AuditConfig {
  /** audit rows are purged this long after they were written */
  retentionMs: number;
}

export const auditConfig = registerAs('audit', (): AuditConfig => {
  const env = validateConfig(process.env, AuditEnv);
  return { retentionMs: parseDuration(env.AUDIT_RETENTION)! };
});
