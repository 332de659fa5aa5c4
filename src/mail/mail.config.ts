import { registerAs } from '@nestjs/config';
import { IsOptional, IsString, Matches } from 'class-validator';
import { validateConfig } from '../platform/config/validate-config';

class MailEnv {
  /** smtp:// or smtps:// URL of the server that sends the mail; unset: mail is kept in mail_outbox */
  @IsOptional()
  @Matches(/^smtps?:\/\/\S+$/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;
  /** the From address of every mail */
  @IsString() MAIL_FROM: string = 'Listings Service <no-reply@localhost>';
}

export interface MailConfig {
  smtpUrl: string | undefined;
  from: string;
}

export const mailConfig = registerAs('mail', (): MailConfig => {
  const env = validateConfig(process.env, MailEnv);
  return { smtpUrl: env.SMTP_URL || undefined, from: env.MAIL_FROM };
});
