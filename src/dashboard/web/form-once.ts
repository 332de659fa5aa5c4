import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { hashToken, isWellFormedToken, newToken } from '../security/tokens';
import type { DashboardContext } from './dashboard-context';

/** A form left open longer than this no longer counts (the user opens it again). */
export const FORM_TOKEN_TTL_HOURS = 24;

/**
 * One-time form tokens: a form whose submit makes something shown only once (a key, a signing
 * secret) carries one in a hidden field, and only the first submit of it counts. A reload, a
 * double click or the back button and submit again finds it used and makes nothing. The value
 * is random (256 bits); the table keeps its SHA-256 with the session it was issued to.
 */
@Injectable()
export class FormOnce {
  constructor(private readonly dataSource: DataSource) {}

  /** A new token for a form of this session (also drops this session's expired ones). */
  async issue(ctx: Pick<DashboardContext, 'session'>): Promise<string> {
    const token = newToken();
    await this.dataSource.query(
      `WITH expired AS (
         DELETE FROM dashboard_form_tokens
         WHERE session_id = $2 AND created_at < now() - $3 * interval '1 hour')
       INSERT INTO dashboard_form_tokens (token_hash, session_id) VALUES ($1, $2)`,
      [hashToken(token), ctx.session.id, FORM_TOKEN_TTL_HOURS],
    );
    return token;
  }

  /**
   * True exactly once per token issued to this session, within its time: one guarded UPDATE, so
   * of two submits racing each other only one sees true. A token of another session, unknown,
   * expired, malformed or used is false.
   */
  async consume(ctx: Pick<DashboardContext, 'session'>, token: unknown): Promise<boolean> {
    if (!isWellFormedToken(token)) return false;
    const [rows]: [unknown[], number] = await this.dataSource.query(
      `UPDATE dashboard_form_tokens SET used_at = now()
       WHERE token_hash = $1 AND session_id = $2 AND used_at IS NULL
         AND created_at >= now() - $3 * interval '1 hour'
       RETURNING 1`,
      [hashToken(token), ctx.session.id, FORM_TOKEN_TTL_HOURS],
    );
    return rows.length === 1;
  }
}
