import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { KeyAuthenticator } from '../auth/key-authenticator';
import { Account } from './account.entity';
import { AccountsService } from './accounts.service';
import { ApiKey } from './api-key.entity';
import { ApiKeysService } from './api-keys.service';
import { MeController } from './me.controller';
import { MeService } from './me.service';

@Module({
  imports: [TypeOrmModule.forFeature([Account, ApiKey]), AuditModule],
  controllers: [MeController],
  providers: [
    AccountsService,
    ApiKeysService,
    MeService,
    { provide: KeyAuthenticator, useExisting: ApiKeysService },
  ],
  exports: [AccountsService, ApiKeysService, KeyAuthenticator],
})
export class AccountsModule {}
