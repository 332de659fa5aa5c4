import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { NOT_UTF8_MARK } from '../../common/http/invalid-utf8';
import { FeedError } from './feed-error';
import { DEFAULT_FEED_LIMITS, type FeedLimits, type FeedLine } from './feed.types';
import { readFeed } from './read-feed';
import { bytewise, feedFailure } from '../../../test/support/feed-reading';

async function read(
  chunks: (Buffer | string)[],
  { gzip = false, limits = {} }: { gzip?: boolean; limits?: Partial<FeedLimits> } = {},
): Promise<FeedLine[]> {
  const lines: FeedLine[] = [];
  const feed = readFeed(Readable.from(chunks), {
    format: 'ndjson',
    gzip,
    limits: { ...DEFAULT_FEED_LIMITS, ...limits },
    attributeType: () => undefined,
  });
  for await (const record of feed) lines.push(record.read());
  return lines;
}

const SAMPLE =
  '\ufeff{"externalId":"a","price":1}\r\n' +
  '\r\n' +
  '   \n' +
  '{"externalId":"b","attributes":{"modelYear":2019}}\n' +
  '{"externalId": "c", oops}\n' +
  '[1,2]\n' +
  '"text"\n' +
  'null\n' +
  '{"externalId":"ä","images":[{"url":"https://x/1.jpg"}]}';

const SAMPLE_LINES: FeedLine[] = [
  { line: 1, body: { externalId: 'a', price: 1 } },
  { line: 4, body: { externalId: 'b', attributes: { modelYear: 2019 } } },
  {
    line: 5,
    error: expect.stringMatching(/^line 5: not valid JSON \(.+\)$/),
    externalId: 'c',
  },
  { line: 6, error: 'line 6: not a JSON object (an array)' },
  { line: 7, error: 'line 7: not a JSON object (a string)' },
  { line: 8, error: 'line 8: not a JSON object (null)' },
  { line: 9, body: { externalId: 'ä', images: [{ url: 'https://x/1.jpg' }] } },
];

describe('readFeed, NDJSON', () => {
  it('numbers lines from 1, skips blank lines, reads CRLF and a BOM, reports unreadable lines', async () => {
    expect(await read([SAMPLE])).toEqual(SAMPLE_LINES);
  });

  it('reads the same lines whatever the chunk boundaries, a byte at a time included', async () => {
    expect(await read(bytewise(SAMPLE))).toEqual(SAMPLE_LINES);
    const gz = gzipSync(SAMPLE);
    expect(await read(bytewise(gz), { gzip: true })).toEqual(SAMPLE_LINES);
  });

  it('reads Uint8Array chunks that are views into a larger buffer as their own bytes, not the whole buffer', async () => {
    const whole = Buffer.from(`xx${SAMPLE}yy`);
    const view = (from: number, to: number) =>
      new Uint8Array(whole.buffer, whole.byteOffset + from, to - from);
    const middle = 2 + Math.floor(SAMPLE.length / 2);
    const lines: FeedLine[] = [];
    const feed = readFeed(Readable.from([view(2, middle), view(middle, whole.length - 2)]), {
      format: 'ndjson',
      gzip: false,
      limits: DEFAULT_FEED_LIMITS,
      attributeType: () => undefined,
    });
    for await (const record of feed) lines.push(record.read());
    expect(lines).toEqual(SAMPLE_LINES);
  });

  it('gives each record its line as content, without BOM or line ending, parsed only when read', async () => {
    const records = [];
    for await (const record of readFeed(Readable.from([SAMPLE]), {
      format: 'ndjson',
      gzip: false,
      limits: DEFAULT_FEED_LIMITS,
      attributeType: () => undefined,
    }))
      records.push(record);
    expect(records.map((r) => r.line)).toEqual([1, 4, 5, 6, 7, 8, 9]);
    expect(records[0].content.toString()).toBe('{"externalId":"a","price":1}');
    expect(records[2].content.toString()).toBe('{"externalId": "c", oops}');
    expect(records[6].content.toString()).toBe(
      '{"externalId":"ä","images":[{"url":"https://x/1.jpg"}]}',
    );
  });

  it('still reads the externalId a line that is not JSON names plainly (a typo never removes a listing)', async () => {
    const lines = [
      '{"externalId": "car-1", "price": 1,}',
      '{"title": "a \\"quoted\\" word", "externalId":"car-\\"2\\"" oops',
      '{"externalId": 42, oops}',
      '{"externalId": "car-3}',
      'externalId: car-4',
    ];
    expect((await read([lines.join('\n')])).map((l) => ('error' in l ? l.externalId : l))).toEqual([
      'car-1',
      'car-"2"',
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('fails a line too wide or too deep to validate as the PUT refuses such a body, naming the field', async () => {
    const wide = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`k${i}`, i]));
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = { d: deep };
    const lines = [
      JSON.stringify({ externalId: 'w-1', attributes: wide }),
      JSON.stringify({ ...wide, externalId: 'w-2' }),
      JSON.stringify({ externalId: 'w-3', attributes: deep }),
    ];
    expect(await read([lines.join('\n')])).toEqual([
      {
        line: 1,
        error: 'line 1: attributes has more than 200 keys',
        field: 'attributes',
        externalId: 'w-1',
      },
      {
        line: 2,
        error: 'line 2: the line has more than 200 keys',
        field: 'body',
        externalId: 'w-2',
      },
      {
        line: 3,
        error: 'line 3: the line is nested more than 32 levels deep',
        field: 'body',
        externalId: 'w-3',
      },
    ]);
  });

  it('fails a line of more than 20,000 values alone, as the PUT refuses such a body', async () => {
    const row = `[${Array.from({ length: 99 }, () => '{}').join(',')}]`;
    const grid = `[${Array.from({ length: 99 }, () => row).join(',')}]`;
    const heavy = `{"externalId":"v-1","x":[${grid},${grid},${grid}]}`;
    expect(await read([`${heavy}\n{"a":1}\n`])).toEqual([
      {
        line: 1,
        error: 'line 1: the line holds more than 20000 values',
        field: 'body',
        externalId: 'v-1',
      },
      { line: 2, body: { a: 1 } },
    ]);
  });

  it('skips lines of any whitespace, and reads a line that starts with whitespace', async () => {
    const text = '\u3000\u00a0\n\t{"a":1}\n \n\u00a0{"b":2}\n\u00e4\n';
    expect(await read([text])).toEqual([
      { line: 2, body: { a: 1 } },
      { line: 4, error: expect.stringMatching(/^line 4: not valid JSON/) },
      { line: 5, error: expect.stringMatching(/^line 5: not valid JSON/) },
    ]);
    const latin1 = Buffer.from([0x20, 0xe4, 0x0a]); // a space, then ä in Latin-1: not UTF-8
    expect(await read([latin1])).toEqual([{ line: 1, error: 'line 1: not valid UTF-8' }]);
  });

  it('reads a last line without a line ending, and a file without lines', async () => {
    expect(await read(['{"a":1}\n{"b":2}'])).toEqual([
      { line: 1, body: { a: 1 } },
      { line: 2, body: { b: 2 } },
    ]);
    expect(await read([])).toEqual([]);
    expect(await read(['\ufeff\n\r\n'])).toEqual([]);
  });

  it('reports a line that is not UTF-8 as that line', async () => {
    const lines = await read([Buffer.from([0x7b, 0xff, 0x7d, 0x0a]), '{"a":1}\n']);
    expect(lines).toEqual([
      { line: 1, error: 'line 1: not valid UTF-8' },
      { line: 2, body: { a: 1 } },
    ]);
  });

  it('reads invalid bytes inside a string as a lone surrogate, for the field to refuse', async () => {
    const latin1 = Buffer.concat([
      Buffer.from('{"title":"gr'),
      Buffer.from([0xe5]),
      Buffer.from('"}\n'),
    ]);
    expect(await read([latin1])).toEqual([{ line: 1, body: { title: `gr${NOT_UTF8_MARK}` } }]);
  });

  it('gunzips a gzip body', async () => {
    expect(await read([gzipSync(SAMPLE)], { gzip: true })).toEqual(SAMPLE_LINES);
  });

  it('fails a truncated gzip body with bad_gzip', async () => {
    const gz = gzipSync(SAMPLE);
    const err = await feedFailure(read([gz.subarray(0, gz.length - 6)], { gzip: true }));
    expect(err.code).toBe('bad_gzip');
  });

  it('fails a body that is not gzip, or corrupt gzip, with bad_gzip', async () => {
    expect((await feedFailure(read([SAMPLE], { gzip: true }))).code).toBe('bad_gzip');
    const gz = gzipSync(SAMPLE);
    gz.fill(0x55, 12, 30);
    expect((await feedFailure(read([gz], { gzip: true }))).code).toBe('bad_gzip');
  });

  it('fails past maxLines with too_many_lines; blank lines do not count', async () => {
    const three = '{"a":1}\n\n{"a":2}\nnot json\n';
    expect(await read([three], { limits: { maxLines: 3 } })).toHaveLength(3);
    const err = await feedFailure(read([three + '{"a":4}\n'], { limits: { maxLines: 3 } }));
    expect(err.code).toBe('too_many_lines');
    expect(err.line).toBe(5);
    expect(err.message).toContain('more than 3 lines');
  });

  it('fails past maxLines blank lines with too_many_lines: they cost reading though they import nothing', async () => {
    const limits = { maxLines: 3 };
    expect(await read(['\n\n \n\t\n{"a":1}\n{"a":2}\n'], { limits: { maxLines: 4 } })).toHaveLength(
      2,
    );
    const err = await feedFailure(read(['{"a":1}\n\n\r\n \n\n{"a":2}\n'], { limits }));
    expect(err).toMatchObject({ code: 'too_many_lines', line: 5 });
    expect(err.message).toBe('line 5: the file has more than 3 blank lines');
  });

  it('fails a gzip body that inflates past four times maxBytes with too_large, reading no further', async () => {
    const bomb = gzipSync(Buffer.alloc(2_000_000, '\n'));
    const limits = { maxBytes: 100_000, maxLines: 10_000_000 };
    expect(bomb.length).toBeLessThan(limits.maxBytes);
    const err = await feedFailure(read([bomb], { gzip: true, limits }));
    expect(err.code).toBe('too_large');
    expect(err.message).toBe(
      'the file inflates to more than 400000 bytes (4 times the limit on what is sent)',
    );
    const fits = gzipSync(Buffer.from('{"a":1}\n'.repeat(40_000))); // 320 KB inflated
    expect(await read([fits], { gzip: true, limits })).toHaveLength(40_000);
  });

  it('fails a line over maxLineBytes with line_too_long before holding it whole', async () => {
    const limits = { maxLineBytes: 16 };
    const fits = '{"a":"123456789"}';
    expect(Buffer.byteLength(fits)).toBe(17);
    expect(await read([`{"a":"12345678"}\r\n`], { limits })).toHaveLength(1);
    const err = await feedFailure(read([`{"a":1}\n${fits}\n`], { limits }));
    expect(err).toMatchObject({ code: 'line_too_long', line: 2 });
    expect(err.message).toBe('line 2: longer than 16 bytes');

    // an endless line stops the read once it passes the limit
    let sent = 0;
    async function* endless() {
      for (;;) {
        sent += 1024;
        yield Buffer.alloc(1024, 0x61);
      }
    }
    const feed = readFeed(endless(), {
      format: 'ndjson',
      gzip: false,
      limits: { ...DEFAULT_FEED_LIMITS, maxLineBytes: 64 * 1024 },
      attributeType: () => undefined,
    });
    expect((await feedFailure(feed.next())).code).toBe('line_too_long');
    expect(sent).toBeLessThanOrEqual(65 * 1024 + 1024);
  });

  it('fails past maxBytes with too_large, counting the compressed bytes of a gzip body', async () => {
    const size = Buffer.byteLength(SAMPLE);
    expect(await read([SAMPLE], { limits: { maxBytes: size } })).toHaveLength(7);
    expect((await feedFailure(read([SAMPLE], { limits: { maxBytes: size - 1 } }))).code).toBe(
      'too_large',
    );
    const gz = gzipSync(SAMPLE);
    expect(await read([gz], { gzip: true, limits: { maxBytes: gz.length } })).toHaveLength(7);
    const err = await feedFailure(read([gz], { gzip: true, limits: { maxBytes: gz.length - 1 } }));
    expect(err.code).toBe('too_large');
  });

  it('passes an error of the source through unchanged', async () => {
    const broken = new Readable({ read() {} });
    broken.push('{"a":1}\n');
    setImmediate(() => broken.destroy(new Error('connection reset')));
    const err = await readAll(broken).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(FeedError);
    expect(err).toMatchObject({ message: 'connection reset' });
  });

  it('streams 50,000 lines with bounded heap', async () => {
    const gc = exposeGc();
    expect(gc).toBeDefined();
    const padding = 'x'.repeat(1000);
    async function* lines() {
      for (let i = 0; i < 50_000; i += 100) {
        let batch = '';
        for (let j = i; j < i + 100; j++)
          batch += `{"externalId":"ext-${j}","title":"Listing ${j}","description":"${padding}"}\n`;
        yield batch;
      }
    }
    gc!();
    const before = process.memoryUsage().heapUsed;
    let peak = 0;
    let count = 0;
    let bodies = 0;
    for await (const line of readFeed(lines(), {
      format: 'ndjson',
      gzip: false,
      limits: DEFAULT_FEED_LIMITS,
      attributeType: () => undefined,
    })) {
      if ('body' in line.read()) bodies++;
      if (++count % 10_000 === 0) {
        gc!();
        peak = Math.max(peak, process.memoryUsage().heapUsed - before);
      }
    }
    expect(bodies).toBe(50_000);
    // 50 MB went through; with a collector between samples, what stays is a few chunks
    expect(peak).toBeLessThan(50 * 1024 * 1024);
  });
});

async function readAll(source: Readable): Promise<FeedLine[]> {
  const lines: FeedLine[] = [];
  for await (const line of readFeed(source, {
    format: 'ndjson',
    gzip: false,
    limits: DEFAULT_FEED_LIMITS,
    attributeType: () => undefined,
  }))
    lines.push(line.read());
  return lines;
}

/** V8's collector, so that heapUsed measures what is held rather than what awaits collection. */
function exposeGc(): (() => void) | undefined {
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
  return typeof gc === 'function' ? (gc as () => void) : undefined;
}
