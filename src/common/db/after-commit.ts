import type {
  DataSource,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';

/**
 * Work collected during a transaction, handed to `onCommit` once the transaction commits, and
 * dropped if it rolls back. TypeORM reports a released savepoint as a commit too: only the
 * outermost transaction's end counts. `onCommit` runs on the committing connection, still held.
 */
export class AfterCommit<T> implements EntitySubscriberInterface {
  private readonly pending = new WeakMap<QueryRunner, T[]>();

  constructor(
    dataSource: DataSource,
    private readonly onCommit: (runner: QueryRunner, items: T[]) => Promise<void> | void,
  ) {
    dataSource.subscribers.push(this);
  }

  /** Adds to the transaction of `runner`, which must be active. */
  add(runner: QueryRunner, ...items: T[]): void {
    this.pending.set(runner, [...(this.pending.get(runner) ?? []), ...items]);
  }

  async afterTransactionCommit({ queryRunner }: TransactionCommitEvent): Promise<void> {
    if (queryRunner.isTransactionActive) return;
    const items = this.pending.get(queryRunner);
    if (!items) return;
    this.pending.delete(queryRunner);
    await this.onCommit(queryRunner, items);
  }

  afterTransactionRollback({ queryRunner }: TransactionRollbackEvent): void {
    if (!queryRunner.isTransactionActive) this.pending.delete(queryRunner);
  }
}
