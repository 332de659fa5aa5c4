import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
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

  /** With `em`, in the caller's transaction (the dashboard's sign-up). */
  create(name: string, approve = false, em?: EntityManager): Promise<Account> {
    const accounts = em ? em.getRepository(Account) : this.accounts;
    return accounts.save(accounts.create({ name, status: approve ? 'APPROVED' : 'PENDING' }));
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
