import type { EntityManager } from 'typeorm';

let counter = 0;

/**
 * Runs `work` inside a savepoint of the caller's transaction: if it throws, only its own writes
 * are undone and the transaction stays usable (PostgreSQL aborts the whole transaction otherwise).
 */
export async function withSavepoint<T>(em: EntityManager, work: () => Promise<T>): Promise<T> {
  const name = `sp_${++counter}`;
  await em.query(`SAVEPOINT ${name}`);
  try {
    const result = await work();
    await em.query(`RELEASE SAVEPOINT ${name}`);
    return result;
  } catch (error) {
    await em.query(`ROLLBACK TO SAVEPOINT ${name}`);
    throw error;
  }
}
