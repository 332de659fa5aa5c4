import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

export interface FailureCounts {
  /** failures of this email from this address in the window */
  pair: number;
  /** failures of any email from this address in the window */
  address: number;
}

/** The one owner of `sign_in_failures`: recent failed sign-ins, counted for throttling. */
@Injectable()
export class SignInFailuresStore {
  constructor(private readonly dataSource: DataSource) {}

  async counts(email: string, ipPrefix: string, windowMs: number): Promise<FailureCounts> {
    const rows: { pair: number; address: number }[] = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE email = $1)::int AS pair, count(*)::int AS address
         FROM sign_in_failures
        WHERE ip_prefix = $2 AND created_at > now() - $3 * interval '1 millisecond'`,
      [email, ipPrefix, windowMs],
    );
    return rows[0];
  }

  /** Records a failure; the address's rows older than a day go in the same statement. */
  async record(em: EntityManager, email: string, ipPrefix: string): Promise<void> {
    await em.query(
      `WITH purged AS (
         DELETE FROM sign_in_failures
          WHERE ip_prefix = $2 AND created_at < now() - interval '1 day')
       INSERT INTO sign_in_failures (email, ip_prefix) VALUES ($1, $2)`,
      [email, ipPrefix],
    );
  }
}
