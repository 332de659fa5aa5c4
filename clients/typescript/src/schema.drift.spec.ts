import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const PACKAGE = join(__dirname, '..');

describe('generated client types', () => {
  it('are what the committed OpenAPI document generates', () => {
    // the generator's own --check, with the arguments of `npm run client:generate`
    const check = spawnSync('npm', ['run', '-s', 'generate', '--', '--check'], {
      cwd: PACKAGE,
      encoding: 'utf8',
    });
    if (check.status !== 0)
      throw new Error(
        `clients/typescript/src/schema.d.ts differs from what openapi/openapi.json generates: run npm run client:generate and commit it\n${check.stdout}${check.stderr}`,
      );
  });

  it('compile with the client’s TypeScript, under its own lib and under the default (DOM) one', () => {
    for (const lib of [[], ['--lib', 'ES2023,DOM']]) {
      const tsc = spawnSync('npx', ['tsc', '--noEmit', '-p', 'tsconfig.json', ...lib], {
        cwd: PACKAGE,
        encoding: 'utf8',
      });
      if (tsc.status !== 0) throw new Error(`tsc ${lib.join(' ')}:\n${tsc.stdout}${tsc.stderr}`);
    }
  });
});
