/**
 * Summarises a V8 .cpuprofile (from BENCH_PROFILE): busy time by package and the functions with
 * the most self and inclusive time, as shares of the busy time. Usage:
 *   npx ts-node --transpile-only bench/lib/profile-summary.ts <file.cpuprofile> [top]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const IDLE = new Set(['(idle)', '(program)']);

function where(url: string): string {
  if (!url) return '(native/V8)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return 'node core';
  const own = /\/(dist|src)\/(.+)$/.exec(url);
  return own ? `app ${own[2]}` : url;
}

function summarise(file: string, top: number): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n: ProfileNode) =>
    `${n.callFrame.functionName || '(anonymous)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const node = byId.get(id)!;
    if (IDLE.has(node.callFrame.functionName)) {
      idle += us;
      return;
    }
    busy += us;
    self.set(label(node), (self.get(label(node)) ?? 0) + us);
    const pkg =
      node.callFrame.functionName === '(garbage collector)' ? '(gc)' : where(node.callFrame.url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const l = label(byId.get(at)!);
      if (seen.has(l)) continue;
      seen.add(l);
      inclusive.set(l, (inclusive.get(l) ?? 0) + us);
    }
  });
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
  const print = (title: string, m: Map<string, number>) => {
    console.log(`\n${title}`);
    for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(`  ${pct(v)}  ${k}`);
  };
  console.log(
    `${file}: busy ${(busy / 1e3).toFixed(0)} ms, idle ${(idle / 1e3).toFixed(0)} ms (${profile.samples.length} samples)`,
  );
  print('Self time by package', byPackage);
  print('Self time by function', self);
  print('Inclusive time by function', inclusive);
}

summarise(process.argv[2], Number(process.argv[3] ?? 40));
