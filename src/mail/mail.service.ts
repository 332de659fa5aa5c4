import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { createTransport, type Transporter } from 'nodemailer';
import { DataSource, EntityManager, EntitySubscriberInterface, QueryRunner } from 'typeorm';
import { mailConfig } from './mail.config';
import { KeptMail, MailMessage, MailOutboxStore } from './mail-outbox.store';

/**
 * Sends mail. With SMTP_URL, through nodemailer; a mail given with the caller's transaction is
 * sent only once that transaction commits (and dropped if it rolls back). Without SMTP_URL, the
 * mail is kept in `mail_outbox`, in the caller's transaction when one is given.
 */
@Injectable()
export class MailService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Mail');
  private readonly transport: Transporter | undefined;
  /** mail waiting for its transaction's commit, per query runner */
  private readonly waiting = new WeakMap<QueryRunner, MailMessage[]>();

  constructor(
    @Inject(mailConfig.KEY) private readonly config: ConfigType<typeof mailConfig>,
    private readonly outbox: MailOutboxStore,
    private readonly dataSource: DataSource,
  ) {
    this.transport = config.smtpUrl ? createTransport(config.smtpUrl) : undefined;
  }

  onModuleInit(): void {
    if (!this.transport) return;
    const subscriber: EntitySubscriberInterface = {
      afterTransactionCommit: (event) => this.flush(event.queryRunner),
      afterTransactionRollback: (event) => {
        this.waiting.delete(event.queryRunner);
      },
    };
    this.dataSource.subscribers.push(subscriber);
  }

  onModuleDestroy(): void {
    this.transport?.close();
  }

  async send(message: MailMessage, em?: EntityManager): Promise<void> {
    if (!this.transport) {
      await this.outbox.insert(em, message);
      return;
    }
    const runner = em?.queryRunner;
    if (runner?.isTransactionActive) {
      const list = this.waiting.get(runner) ?? [];
      list.push(message);
      this.waiting.set(runner, list);
      return;
    }
    await this.deliver(message);
  }

  /** The kept mail (SMTP_URL unset), newest first. */
  kept(filter: { to?: string; limit: number; beforeId?: string }): Promise<KeptMail[]> {
    return this.outbox.list(filter);
  }

  private flush(runner: QueryRunner): void {
    const list = this.waiting.get(runner);
    if (!list) return;
    this.waiting.delete(runner);
    // After the commit: the change stands whether or not the mail goes out; a failure is logged.
    for (const message of list) void this.deliver(message).catch(() => undefined);
  }

  private async deliver(message: MailMessage): Promise<void> {
    try {
      await this.transport!.sendMail({
        from: this.config.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
      });
    } catch (error) {
      this.logger.error({ err: error, subject: message.subject }, 'Mail not sent');
      throw error;
    }
  }
}
