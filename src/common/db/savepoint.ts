import type { EntityManager } from 'typeorm';

let counter = 0;

/** Runs `work` in a savepoint: a throw undoes only its writes and leaves the transaction usable. */
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
