import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { hashToken, isWellFormedToken, newToken } from '../security/tokens';
import type { DashboardContext } from './dashboard-context';

/**
 * One-time form tokens: a form that must act at most once (create a key, rotate a secret) carries
 * `FormOnce.issue(ctx)` in a hidden field; the POST calls `consume(ctx, token)` before acting. The
 * table keeps the token's SHA-256 with the session; consuming marks it used in one UPDATE, so of
 * two racing submits exactly one gets true. A reload of the answer (a resubmit) gets false: the
 * page says "this form was already used" and acts no more.
 */
@Injectable()
export class FormOnce {
  constructor(private readonly dataSource: DataSource) {}

  /** A new random 256-bit token for one form of this session. */
  async issue(ctx: DashboardContext): Promise<string> {
    const token = newToken();
    await this.dataSource.query(
      `INSERT INTO dashboard_form_tokens (token_hash, session_id) VALUES ($1, $2)`,
      [hashToken(token), ctx.session.id],
    );
    return token;
  }

  /** True exactly once for a token issued to this session; false when used, unknown or foreign. */
  async consume(ctx: DashboardContext, token: unknown): Promise<boolean> {
    if (!isWellFormedToken(token)) return false;
    // An UPDATE answers [rows, count] through TypeORM's pg driver.
    const [rows]: [unknown[], number] = await this.dataSource.query(
      `UPDATE dashboard_form_tokens SET used_at = now()
        WHERE token_hash = $1 AND session_id = $2 AND used_at IS NULL
        RETURNING 1`,
      [hashToken(token), ctx.session.id],
    );
    return rows.length === 1;
  }
}
