import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface KommunRecord {
  code: string;
  slug: string;
  name: string;
}

export interface LanRecord {
  code: string;
  slug: string;
  name: string;
  kommuner: KommunRecord[];
}

/** SCB's 21 län and 290 kommuner (see data/sweden-lan-kommuner.tsv and shared/reference). */
export function readLocations(): LanRecord[] {
  const text = readFileSync(join(__dirname, 'data', 'sweden-lan-kommuner.tsv'), 'utf8');
  const [, ...rows] = text.trimEnd().split('\n');
  const byCode = new Map<string, LanRecord>();
  for (const row of rows) {
    const [lanCode, lanName, lanSlug, kommunCode, kommunName, kommunSlug] = row.split('\t');
    let lan = byCode.get(lanCode);
    if (!lan) {
      lan = { code: lanCode, slug: lanSlug, name: lanName, kommuner: [] };
      byCode.set(lanCode, lan);
    }
    lan.kommuner.push({ code: kommunCode, slug: kommunSlug, name: kommunName });
  }
  return [...byCode.values()];
}
