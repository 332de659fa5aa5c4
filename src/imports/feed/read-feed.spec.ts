import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { attributeTypesOf } from './attribute-types';
import { CATEGORY_TREE } from '../../reference/categories.data';
import { DEFAULT_FEED_LIMITS } from './feed.types';
import { READ_CHUNK_BYTES, readFeed } from './read-feed';

const attributeType = attributeTypesOf(CATEGORY_TREE);
/** A CSV of `rows` short rows, about 1 MiB in all. */
const csv = (rows = 40_000) =>
  'externalId,title\n' + Array.from({ length: rows }, (_, i) => `e-${i},Cykel ${i}\n`).join('');

const read = (source: Readable, checkpoint?: () => Promise<void>, gzip = false) =>
  readFeed(source, { format: 'csv', gzip, limits: DEFAULT_FEED_LIMITS, attributeType, checkpoint });

/** The reading's turns and checkpoints, whatever the source's chunks or compression. */
describe('readFeed in turns', () => {
  afterEach(() => jest.restoreAllMocks());

  it.each([
    ['one chunk', false],
    ['gzip', true],
  ])('reads %s in pieces, awaiting the checkpoint between them', async (_, gzip) => {
    const text = csv();
    let checkpoints = 0;
    const body = gzip ? gzipSync(text) : Buffer.from(text);
    let lines = 0;
    for await (const record of read(Readable.from([body]), async () => void checkpoints++, gzip)) {
      record.read();
      lines++;
    }
    expect(lines).toBe(40_000);
    expect(checkpoints).toBeGreaterThanOrEqual(Math.floor(text.length / READ_CHUNK_BYTES));
  });

  it('gives the event loop a turn between pieces once a turn has run long enough', async () => {
    // Every piece takes "20 ms": each one ends its turn.
    let now = 0;
    jest.spyOn(performance, 'now').mockImplementation(() => (now += 20));
    let turns = 0;
    let reading = true;
    const tick = () => {
      if (!reading) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const text = csv();
    for await (const record of read(Readable.from([Buffer.from(text)]))) record.read();
    reading = false;
    expect(turns).toBeGreaterThanOrEqual(Math.floor(text.length / READ_CHUNK_BYTES));
  });

  it('stops at a checkpoint that throws, closing the source', async () => {
    const source = Readable.from([Buffer.from(csv())]);
    let checkpoints = 0;
    const cancelled = new Error('cancelled');
    const reading = (async () => {
      for await (const record of read(source, async () => {
        if (++checkpoints === 3) throw cancelled;
      }))
        record.read();
    })();
    await expect(reading).rejects.toBe(cancelled);
    await new Promise(setImmediate);
    expect(source.destroyed).toBe(true);
  });
});
