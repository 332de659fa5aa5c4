import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFoundError } from '../common/errors/domain-error';
import type { AccountStatus } from '../auth/principal';
import { Account } from './account.entity';
import { ApiKeysService } from './api-keys.service';

@Injectable()
export class AccountsService {
  constructor(
    @InjectRepository(Account) private readonly accounts: Repository<Account>,
    private readonly apiKeys: ApiKeysService,
  ) {}

  create(name: string, approve = false): Promise<Account> {
    return this.accounts.save(
      this.accounts.create({ name, status: approve ? 'APPROVED' : 'PENDING' }),
    );
  }

  async get(id: string): Promise<Account> {
    const account = await this.accounts.findOneBy({ id });
    if (!account) throw new NotFoundError('Account');
    return account;
  }

  async setStatus(id: string, status: AccountStatus): Promise<Account> {
    const account = await this.get(id);
    account.status = status;
    const saved = await this.accounts.save(account);
    this.apiKeys.forgetAccount(id);
    return saved;
  }
}
