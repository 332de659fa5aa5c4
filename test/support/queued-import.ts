import { Readable } from 'node:stream';
import type { OwnerScope } from '../../src/auth/scope';
import { ImportsStore } from '../../src/imports/imports.store';
import { STORAGE_DRIVER, StorageDriver } from '../../src/storage/storage-driver';
import type { IntegrationContext } from './integration';

/**
 * An upload import of `lines` for `owner` (NDJSON, or CSV with `format: 'csv'`), queued as
 * POST /v1/imports leaves it (its file stored, no job), for integration tests that run the
 * ImportRunner themselves (`mode` upsert unless given, `renew` false). Its id. A line given as a string is written as it is (for CSV every
 * line is, the header first); an object is written as its JSON.
 */
export async function queueImport(
  ctx: IntegrationContext,
  owner: OwnerScope,
  lines: (Record<string, unknown> | string)[],
  {
    dryRun = false,
    format = 'ndjson' as 'ndjson' | 'csv',
    mode = 'upsert' as 'upsert' | 'mirror',
    renew = false,
  } = {},
): Promise<string> {
  const fileKey = `imports/int-${Math.random().toString(36).slice(2)}`;
  await ctx
    .get<StorageDriver>(STORAGE_DRIVER as never)
    .putPrivate(fileKey, Readable.from([lines.map(fileLine).join('\n') + '\n']));
  const row = await ctx.dataSource.transaction((em) =>
    ctx.get(ImportsStore).insertWithinLimit(
      em,
      owner,
      {
        mode,
        dryRun,
        renew,
        format,
        source: 'upload',
        sourceUrl: null,
        gzip: false,
        fileKey,
        maxRemovals: null,
      },
      5,
    ),
  );
  return row!.id;
}

const fileLine = (line: Record<string, unknown> | string) =>
  typeof line === 'string' ? line : JSON.stringify(line);
