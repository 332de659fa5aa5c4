import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { mailConfig } from './mail.config';
import { MailOutboxRetention } from './mail-outbox-retention';
import { MailOutboxStore } from './mail-outbox.store';
import { MailService } from './mail.service';

/** Mail: SMTP through nodemailer when SMTP_URL is set, else the `mail_outbox` table. */
@Module({
  imports: [ConfigModule.forFeature(mailConfig)],
  providers: [MailOutboxStore, MailOutboxRetention, MailService],
  exports: [MailService],
})
export class MailModule {}
