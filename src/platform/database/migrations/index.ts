import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MigrationInterface } from 'typeorm';

type MigrationClass = new () => MigrationInterface;

/** `<13-digit timestamp>-<Name>.ts` beside this file, or `.js` in the build. */
const MIGRATION_FILE = /^\d{13}-\w+\.(ts|js)$/;

/**
 * Every migration file of this folder, oldest first: a new migration is its file alone. Read from
 * the folder rather than listed, yet the same set under ts-node, Jest and the compiled build.
 */
export const MIGRATIONS: MigrationClass[] = readdirSync(__dirname)
  .filter((file) => MIGRATION_FILE.test(file))
  .sort()
  .map((file) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- found by its file name
    const exported = Object.values(require(join(__dirname, file)) as Record<string, unknown>);
    if (exported.length !== 1 || typeof exported[0] !== 'function')
      throw new Error(`Migration ${file} must export exactly one class`);
    return exported[0] as MigrationClass;
  });
