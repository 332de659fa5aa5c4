import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { CustomTypesConfig, Pool, types } from 'pg';
import { EntityManager, QueryFailedError } from 'typeorm';
import type { AllConfig } from '../config';
import { poolUsage, PoolUsage, watchAnswers } from './pool-usage';
import { poolTimeouts, queryTimeoutMs } from '../config/database.config';
import { parseTimestamptz } from './timestamptz-parser';

/**
 * Each named statement is planned once, generically, as an ordered index scan (seq scans, sorts
 * and JIT off): only reads an index answers in order may use this pool (listings-plans e2e spec).
 */
export const READ_SESSION_SETTINGS = [
  'plan_cache_mode = force_generic_plan',
  'jit = off',
  'enable_seqscan = off',
  'enable_sort = off',
  // UTC output, so timestamps take parseTimestamptz's fast path.
  "TimeZone = 'UTC'",
]
  .map((setting) => `SET ${setting}`)
  .join('; ');

const TYPES: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === types.builtins.TIMESTAMPTZ && format !== 'binary'
      ? parseTimestamptz
      : types.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};

/** One name per statement text; texts come from code, so the map stays small. */
const names = new Map<string, string>();

function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `s_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/** Hot reads as named statements on their own pool; in a transaction, on the caller's manager. */
@Injectable()
export class PreparedReads implements OnApplicationShutdown {
  private readonly logger = new Logger(PreparedReads.name);
  private readonly pool: Pool;

  constructor(config: ConfigService<AllConfig, true>) {
    const database = config.get('database', { infer: true });
    this.pool = new Pool({
      connectionString: database.url,
      max: database.poolSize,
      application_name: 'listings-service-reads',
      ...poolTimeouts(database),
      query_timeout: queryTimeoutMs(database),
      // Set on each new connection before its first read; if that fails, so does the read, and
      // the connection is dropped. (Startup `options` would replace any the URL or PGOPTIONS set.)
      onConnect: (client) => client.query(READ_SESSION_SETTINGS),
      types: TYPES,
    });
    // Idle connections the server ended are replaced on the next read; unhandled, 'error' crashes.
    this.pool.on('error', (error) => this.logger.warn(`Read connection lost: ${error.message}`));
    watchAnswers(this.pool);
  }

  async query<T>(em: EntityManager, text: string, values: unknown[]): Promise<T[]> {
    if (em.queryRunner) return em.query(text, values);
    try {
      return (await this.pool.query({ name: statementName(text), text, values })).rows as T[];
    } catch (error) {
      throw new QueryFailedError(text, values, error as Error);
    }
  }

  /** For readiness: a connection of this pool, session settings applied, answers in time. */
  async ping(timeoutMs: number): Promise<void> {
    // Unref'd: a ping that answered leaves nothing holding the process open.
    const timeout = sleep(timeoutMs, undefined, { ref: false }).then(() => {
      throw new Error(`no answer within ${timeoutMs} ms`);
    });
    await Promise.race([this.pool.query('SELECT 1'), timeout]);
  }

  usage(): PoolUsage {
    return poolUsage(this.pool);
  }

  async onApplicationShutdown(): Promise<void> {
    // Nest may run the shutdown hooks again (a signal after app.close()); a second end() throws.
    if (!this.pool.ended) await this.pool.end();
  }
}
