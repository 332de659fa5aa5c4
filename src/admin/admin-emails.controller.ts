import { Controller, Get, Query } from '@nestjs/common';
import { MailService } from '../mail/mail.service';
import { AdminApi } from './admin-token.guard';
import { AdminEmailsQueryDto } from './dto/admin-emails-query.dto';

/** The mail kept in the outbox when SMTP_URL is unset (local runs, tests), newest first. */
@AdminApi()
@Controller('admin/emails')
export class AdminEmailsController {
  constructor(private readonly mail: MailService) {}

  @Get()
  async list(@Query() query: AdminEmailsQueryDto) {
    const mails = await this.mail.kept({
      to: query.to,
      limit: query.limit,
      beforeId: query.before,
    });
    return mails.map((m) => ({
      id: m.id,
      to: m.to,
      subject: m.subject,
      text: m.text,
      createdAt: m.createdAt.toISOString(),
    }));
  }
}
