import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { MailModule } from '../../src/mail/mail.module';
import { MailService } from '../../src/mail/mail.service';
import { createIntegrationContext, IntegrationContext } from '../support/integration';

interface Received {
  to: string[];
  raw: string;
}

/** A real SMTP server on a local port, keeping what it receives. */
async function startSmtp(): Promise<{ server: SMTPServer; port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { server, port, received };
}

const until = async (check: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('MailService with SMTP_URL: nodemailer to a real SMTP server', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let ctx: IntegrationContext;

  beforeAll(async () => {
    smtp = await startSmtp();
    ctx = await createIntegrationContext(
      { imports: [MailModule] },
      { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'Listings <no-reply@example.se>' },
    );
  });
  afterAll(async () => {
    await ctx.close();
    await new Promise<void>((resolve) => smtp.server.close(() => resolve()));
  });

  it('sends at once without a transaction', async () => {
    await ctx.get(MailService).send({ to: 'anna@example.se', subject: 'Hello', text: 'Body text' });
    await until(() => smtp.received.some((m) => m.to.includes('anna@example.se')));
    const mail = smtp.received.find((m) => m.to.includes('anna@example.se'))!;
    expect(mail.raw).toMatch(/^Subject: Hello$/m);
    expect(mail.raw).toMatch(/^From: Listings <no-reply@example\.se>$/m);
    expect(mail.raw).toContain('Body text');
  });

  it('with the caller transaction: sent after the commit, never after a rollback, and not kept', async () => {
    const mail = ctx.get(MailService);
    const db = ctx.dataSource;
    await expect(
      db.transaction(async (em) => {
        await mail.send({ to: 'rolled@example.se', subject: 'No', text: 'x' }, em);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    let sentBeforeCommit = true;
    await db.transaction(async (em) => {
      await mail.send({ to: 'committed@example.se', subject: 'Yes', text: 'y' }, em);
      await new Promise((r) => setTimeout(r, 200));
      sentBeforeCommit = smtp.received.some((m) => m.to.includes('committed@example.se'));
    });
    expect(sentBeforeCommit).toBe(false);
    await until(() => smtp.received.some((m) => m.to.includes('committed@example.se')));
    await new Promise((r) => setTimeout(r, 200));
    expect(smtp.received.some((m) => m.to.includes('rolled@example.se'))).toBe(false);
    expect(await mail.kept({ limit: 10 })).toEqual([]);
  });
});
