import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { parseArgs } from 'node:util';
import { AccountsModule } from './accounts/accounts.module';
import { AccountsService } from './accounts/accounts.service';
import { ApiKeysService } from './accounts/api-keys.service';
import { CreateAccountDto } from './admin/dto/create-account.dto';
import { CreateKeyDto } from './accounts/dto/create-key.dto';
import { MailModule } from './mail/mail.module';
import { MailService } from './mail/mail.service';
import { RollKeyDto } from './admin/dto/roll-key.dto';
import { AccessRequestsModule } from './access-requests/access-requests.module';
import { OwnerNoticesModule } from './dashboard/owner-notices';
import { AccessRequestsService } from './access-requests/access-requests.service';
import { ListAccessRequestsQueryDto } from './access-requests/dto/list-access-requests.query.dto';
import { RejectAccessRequestDto } from './access-requests/dto/reject-access-request.dto';
import type { AccessRequest } from './access-requests/access-request';
import { keyRollGraceMs } from './accounts/key-roll-grace';
import { CLI_ORIGIN } from './audit/audit-entry';
import { flattenValidationErrors } from './common/http/validation.pipe';
import { CONFIG_LOADERS } from './platform/config';
import { DatabaseModule } from './platform/database/database.module';
import { seedReferenceData } from './reference/reference-seed';

const USAGE = `Usage: npm run cli -- <command>
  account:create --name "Bilhallen AB" [--approve]   prints the account id
  account:approve <accountId>
  account:suspend <accountId>
  key:create <accountId> --kind live|test [--name N] [--scopes a,b]   prints the key (shown only once)
  key:roll <keyId> --grace 0|1h|24h|7d   prints the new key (shown only once); the old one expires after the grace
  key:revoke <keyId>
  access:list [--status pending|approved|rejected] [--after <id>]
  access:approve <requestId>   the account becomes APPROVED
  access:reject <requestId> --reason "Why"
  mail:outbox [--to EMAIL] [--limit N]   the mail kept when SMTP_URL is unset, newest first`;

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, load: CONFIG_LOADERS, ignoreEnvFile: true }),
    DatabaseModule.forRoot(seedReferenceData),
    AccountsModule,
    MailModule,
    AccessRequestsModule,
    // the owners' mails of access decisions and live keys
    OwnerNoticesModule,
  ],
})
class CliModule {}

/** The same DTO rules as the admin HTTP API, so both front doors accept the same input. */
function validated<T extends object>(dto: new () => T, plain: object): T {
  const instance = plainToInstance(dto, plain);
  const errors = flattenValidationErrors(
    validateSync(instance, { whitelist: true, forbidNonWhitelisted: true }),
  );
  if (errors.length > 0) throw new Error(errors.map((e) => `${e.field}: ${e.message}`).join('\n'));
  return instance;
}

async function run(argv: string[]): Promise<string> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      approve: { type: 'boolean' },
      kind: { type: 'string' },
      scopes: { type: 'string' },
      to: { type: 'string' },
      limit: { type: 'string' },
      grace: { type: 'string' },
      status: { type: 'string' },
      after: { type: 'string' },
      reason: { type: 'string' },
    },
  });
  const [command, id] = positionals;
  if (!command || command === 'help') return USAGE;
  const app = await NestFactory.createApplicationContext(CliModule, { logger: ['error'] });
  try {
    const accounts = app.get(AccountsService);
    const apiKeys = app.get(ApiKeysService);
    const access = app.get(AccessRequestsService);
    switch (command) {
      case 'account:create': {
        const dto = validated(CreateAccountDto, {
          name: values.name,
          approve: values.approve ?? false,
        });
        return (await accounts.create(dto.name, dto.approve)).id;
      }
      case 'account:approve': {
        const { account, request } = await access.approveAccount(requireId(id), CLI_ORIGIN);
        return `${account.id} APPROVED${request ? ` (access request ${request.id} approved)` : ''}`;
      }
      case 'account:suspend':
        return `${(await accounts.setStatus(requireId(id), 'SUSPENDED')).id} SUSPENDED`;
      case 'key:create': {
        const dto = validated(CreateKeyDto, {
          kind: values.kind,
          name: values.name,
          scopes: values.scopes?.split(',').map((s) => s.trim()),
        });
        const { record, key } = await apiKeys.create(requireId(id), dto, CLI_ORIGIN);
        console.error(
          `key ${record.id} (${record.kind}, scopes ${record.scopes.join(',')}): store it now, it is not shown again`,
        );
        return key;
      }
      case 'mail:outbox': {
        const limit = Number(values.limit ?? 20);
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
          throw new Error('--limit must be an integer from 1 to 1000.');
        const mails = await app.get(MailService).kept({ to: values.to, limit });
        if (mails.length === 0) return 'No mail kept.';
        return mails
          .map(
            (m) =>
              `#${m.id} ${m.createdAt.toISOString()} to ${m.to}\nSubject: ${m.subject}\n\n${m.text}\n`,
          )
          .join('\n');
      }
      case 'key:roll': {
        const dto = validated(RollKeyDto, { grace: values.grace });
        const old = await apiKeys.get(requireId(id));
        const { record, key, rolled } = await apiKeys.roll(
          old.accountId,
          old.id,
          keyRollGraceMs(dto.grace),
          CLI_ORIGIN,
        );
        console.error(
          `key ${record.id} replaces ${rolled.id}, which expires at ${rolled.expiresAt!.toISOString()}: store the new key now, it is not shown again`,
        );
        return key;
      }
      case 'key:revoke':
        return `${(await apiKeys.revoke(requireId(id), CLI_ORIGIN)).id} revoked`;
      case 'access:list': {
        const query = validated(ListAccessRequestsQueryDto, {
          ...(values.status !== undefined && { status: values.status }),
          ...(values.after !== undefined && { after: values.after }),
        });
        const page = await access.list(query.status ?? null, query.after ?? null, query.limit);
        const lines = (page.items as AccessRequest[]).map(
          (r) =>
            `${r.id}  ${r.status.padEnd(8)}  account ${r.accountId}  ${r.organisationNumber}  ${r.legalName}  (${r.expectedListings}, ${r.website})`,
        );
        if (page.pagination.hasMore) lines.push(`more: --after ${page.pagination.nextCursor}`);
        return lines.join('\n') || 'no access requests';
      }
      case 'access:approve': {
        const { request } = await access.approve(requireId(id), CLI_ORIGIN);
        return `${request.id} approved; account ${request.accountId} APPROVED`;
      }
      case 'access:reject': {
        const dto = validated(RejectAccessRequestDto, { reason: values.reason });
        const { request } = await access.reject(requireId(id), dto.reason, CLI_ORIGIN);
        return `${request.id} rejected; account ${request.accountId} stays PENDING`;
      }
      default:
        throw new Error(`Unknown command ${command}\n${USAGE}`);
    }
  } finally {
    await app.close();
  }
}

function requireId(id: string | undefined): string {
  if (!id || !/^[0-9a-f-]{36}$/i.test(id)) throw new Error('A UUID argument is required.');
  return id;
}

run(process.argv.slice(2)).then(
  (output) => console.log(output),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
