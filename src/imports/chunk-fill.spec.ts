import { ChunkFill } from './chunk-fill';

/** Adds `count` lines of `bytes` each; returns the 1-based count at which the chunk was full. */
function fullAt(fill: ChunkFill, count: number, line: { writes: boolean; bytes?: number }) {
  for (let i = 1; i <= count; i++) if (fill.add(line.bytes ?? 100, line.writes)) return i;
  return undefined;
}

describe('ChunkFill', () => {
  it('is full at chunkLines lines to write, as before', () => {
    expect(fullAt(new ChunkFill(500), 10_000, { writes: true })).toBe(500);
  });

  it('lets lines that write nothing ride along, up to ten times chunkLines in all', () => {
    expect(fullAt(new ChunkFill(500), 10_000, { writes: false })).toBe(5_000);
  });

  it('is full at chunkLines writes even among many quiet lines', () => {
    const fill = new ChunkFill(500);
    let full = false;
    let lines = 0;
    // one line in ten writes: 500 writes come with 4,500 quiet lines
    while (!full) full = fill.add(100, ++lines % 10 === 0);
    expect(lines).toBe(5_000);
    const few = new ChunkFill(500);
    expect(fullAt(few, 300, { writes: false })).toBeUndefined();
    expect(fullAt(few, 500, { writes: true })).toBe(500);
  });

  it('stops riding along once the held lines reach 8 MiB, never below chunkLines lines', () => {
    expect(fullAt(new ChunkFill(500), 10_000, { writes: false, bytes: 4_096 })).toBe(2_048);
    // 500 lines of 256 KiB: more than 8 MiB long before, but a chunk has chunkLines lines
    expect(fullAt(new ChunkFill(500), 10_000, { writes: false, bytes: 256 * 1024 })).toBe(500);
  });

  it('starts again after reset', () => {
    const fill = new ChunkFill(3);
    expect(fullAt(fill, 10, { writes: true })).toBe(3);
    fill.reset();
    expect(fullAt(fill, 100, { writes: false })).toBe(30);
  });
});
