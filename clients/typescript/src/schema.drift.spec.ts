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
});
