import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const INPUTS = [
  'src',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'nest-cli.json',
];

function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(
    stat.mtimeMs,
    ...readdirSync(path).map((entry) => newestChange(join(path, entry))),
  );
}

function builtAt(): number {
  try {
    return statSync(join(ROOT, 'dist/main.js')).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Makes dist/ match the sources, as `npm run build` would: a clean clone (CI) has no dist, and a
 * dist older than any source would test yesterday's code. Builds only when needed.
 */
export function ensureBuiltDist(): void {
  const newest = Math.max(...INPUTS.map((input) => newestChange(join(ROOT, input))));
  if (builtAt() >= newest) return;
  const nest = require.resolve('@nestjs/cli/bin/nest.js', { paths: [ROOT] });
  const result = spawnSync(process.execPath, [nest, 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`nest build failed (exit ${result.status})`);
}
