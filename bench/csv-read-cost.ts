/**
 * Reads CSV files as an import's read pass does (every record read as a listing body), in a
 * process of its own (bench/imports.ts runs it): seconds per MB of each read, and the longest the
 * event loop waited for a turn meanwhile. Apart, so that the bench's own heap, large by the time
 * the imports run, is not collected during a read and counted as the reader's turn.
 * Usage: csv-read-cost.ts <rounds> <file>...; prints one JSON array per file, a read per round.
 */
import { createReadStream, statSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { attributeTypesOf } from '../src/imports/feed/attribute-types';
import { DEFAULT_FEED_LIMITS } from '../src/imports/feed/feed.types';
import { readFeed } from '../src/imports/feed/read-feed';
import { CATEGORY_TREE } from '../src/reference/categories.data';

export interface CsvReadCost {
  secondsPerMb: number;
  maxTurnMs: number;
}

async function readCost(path: string): Promise<CsvReadCost> {
  const attributeType = attributeTypesOf(CATEGORY_TREE);
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const started = performance.now();
  const feed = readFeed(createReadStream(path), {
    format: 'csv',
    gzip: false,
    limits: { ...DEFAULT_FEED_LIMITS, maxBytes: Number.MAX_SAFE_INTEGER },
    attributeType,
  });
  for await (const record of feed) record.read();
  const seconds = (performance.now() - started) / 1000;
  delay.disable();
  return { secondsPerMb: seconds / (statSync(path).size / 1e6), maxTurnMs: delay.max / 1e6 };
}

async function main(): Promise<void> {
  const [rounds, ...paths] = process.argv.slice(2);
  const costs: CsvReadCost[][] = paths.map(() => []);
  // Alternated, so that a slow moment of the machine falls on both kinds of file alike.
  for (let round = 0; round < Number(rounds); round++)
    for (const [i, path] of paths.entries()) costs[i].push(await readCost(path));
  process.stdout.write(JSON.stringify(costs));
}

void main();
