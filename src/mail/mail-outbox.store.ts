import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { purgeBefore } from '../platform/database/purge-before';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface KeptMail extends MailMessage {
  id: string;
  createdAt: Date;
}

interface MailRow {
  id: string;
  to_address: string;
  subject: string;
  body_text: string;
  created_at: Date;
}

/** The one owner of `mail_outbox`: mail kept when no SMTP server is configured. */
@Injectable()
export class MailOutboxStore {
  constructor(private readonly dataSource: DataSource) {}

  async insert(em: EntityManager | undefined, message: MailMessage): Promise<void> {
    await (em ?? this.dataSource.manager).query(
      `INSERT INTO mail_outbox (to_address, subject, body_text) VALUES ($1, $2, $3)`,
      [message.to, message.subject, message.text],
    );
  }

  /** Deletes up to `limit` of the mail kept before `cutoff`, oldest first; returns how many. */
  purgeBefore(cutoff: Date, limit: number): Promise<number> {
    return purgeBefore(this.dataSource, 'mail_outbox', cutoff, limit);
  }

  /** Newest first; `to` compared without case; `beforeId` continues a page. */
  async list(filter: { to?: string; limit: number; beforeId?: string }): Promise<KeptMail[]> {
    const rows: MailRow[] = await this.dataSource.query(
      `SELECT id, to_address, subject, body_text, created_at FROM mail_outbox
        WHERE ($1::text IS NULL OR lower(to_address) = lower($1))
          AND ($2::bigint IS NULL OR id < $2)
        ORDER BY id DESC LIMIT $3`,
      [filter.to ?? null, filter.beforeId ?? null, filter.limit],
    );
    return rows.map((r) => ({
      id: String(r.id),
      to: r.to_address,
      subject: r.subject,
      text: r.body_text,
      createdAt: r.created_at,
    }));
  }
}
