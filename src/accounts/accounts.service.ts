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

  async get(id: string, em?: EntityManager): Promise<Account> {
    const account = await (em?.getRepository(Account) ?? this.accounts).findOneBy({ id });
    if (!account) throw new NotFoundError('Account');
    return account;
  }

  /** The account, its row locked (FOR UPDATE) until the caller's transaction ends. */
  async getLocked(id: string, em: EntityManager): Promise<Account> {
    const account = await em.getRepository(Account).findOne({
      where: { id },
      lock: { mode: 'pessimistic_write' },
    });
    if (!account) throw new NotFoundError('Account');
    return account;
  }

  /**
   * In the caller's transaction when given one (the account row stays locked until it ends).
   * Keys see the new status on every instance within 5 s.
   */
  async setStatus(id: string, status: AccountStatus, em?: EntityManager): Promise<Account> {
    const repo = em?.getRepository(Account) ?? this.accounts;
    const account = await repo.findOne({
      where: { id },
      ...(em ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!account) throw new NotFoundError('Account');
    account.status = status;
    const saved = await repo.save(account);
    this.apiKeys.forgetAccount(id);
    return saved;
  }
}
