import { ChunkPacer, type PacerOptions } from './chunk-pacer';

const pacer = (options: Partial<PacerOptions> = {}) =>
  new ChunkPacer({ slowdown: 1.5, minLines: 1, maxWaitMs: 60_000, ...options });

/** An import's clock: each chunk's writes start after the wait the pacer asked for. */
const clocks = new WeakMap<ChunkPacer, number>();
/** The wait right after a chunk whose writes took `ms` for `lines` lines. */
function after(p: ChunkPacer, ms: number, lines = 500): number {
  let now = clocks.get(p) ?? 0;
  now += p.waitMs(now) + ms;
  clocks.set(p, now);
  p.record(ms, lines, now);
  return p.waitMs(now);
}

describe('ChunkPacer', () => {
  it('never waits while chunks cost what the fastest cost', () => {
    const p = pacer();
    expect([100, 110, 95, 120, 100, 140].map((ms) => after(p, ms))).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('waits twice as long as a chunk took once two in a row are slower per line by the slowdown', () => {
    const p = pacer();
    after(p, 100);
    // one slow chunk alone is let pass, and so is the next that is not slow
    expect(after(p, 250)).toBe(0);
    expect(after(p, 100)).toBe(0);
    expect(after(p, 160)).toBe(0);
    expect(after(p, 160)).toBe(320);
  });

  it('judges per line, not per chunk: a short chunk at the fastest rate is not slow', () => {
    const p = pacer();
    after(p, 100);
    expect(after(p, 200)).toBe(0);
    expect(after(p, 20, 100)).toBe(0);
    expect(after(p, 200)).toBe(0);
  });

  it('keeps waiting after each of the next four chunks, fast or not, then judges again', () => {
    const p = pacer();
    after(p, 100);
    after(p, 200);
    expect(after(p, 200)).toBe(400);
    // right after a wait a chunk looks fast while the database is still busy: it waits too
    expect([100, 110, 200, 100].map((ms) => after(p, ms))).toEqual([200, 220, 400, 200]);
    // judged again: fast chunks go on at once, and it takes two slow ones to wait again
    expect([100, 200, 100, 200].map((ms) => after(p, ms))).toEqual([0, 0, 0, 0]);
    expect(after(p, 200)).toBe(400);
  });

  it('counts the wait from the end of the chunk, and never waits longer than maxWaitMs', () => {
    const p = pacer({ maxWaitMs: 250 });
    p.record(100, 500, 0);
    p.record(200, 500, 1_000);
    p.record(200, 500, 2_000);
    expect(p.waitMs(2_000)).toBe(250);
    expect(p.waitMs(2_100)).toBe(150);
    expect(p.waitMs(2_300)).toBe(0);
  });

  it('follows a cost that grows slowly, as a growing index makes it', () => {
    const p = pacer();
    let ms = 100;
    const waits: number[] = [];
    for (let chunk = 0; chunk < 200; chunk++, ms *= 1.003) waits.push(after(p, ms));
    expect(waits.every((wait) => wait === 0)).toBe(true);
  });

  it('waits through a long slowdown, and takes one lasting past ~57 chunks as the new normal', () => {
    const p = pacer();
    after(p, 100);
    // twice the fastest cost: slow while 1.5 × 1.005^n < 2; of every six chunks, the one judged
    // first after a hold goes on at once
    const waits = Array.from({ length: 80 }, () => after(p, 200));
    expect(waits.slice(0, 60)).toEqual(
      Array.from({ length: 60 }, (_, i) => (i % 6 === 0 ? 0 : 400)),
    );
    expect(waits.slice(60).every((wait) => wait === 0)).toBe(true);
  });

  it('does not time chunks under minLines: they neither wait nor break a run of slow ones', () => {
    const p = pacer({ minLines: 250 });
    after(p, 100);
    expect(after(p, 200)).toBe(0);
    // 40 lines written among 500 read: its fixed costs would make it look slow
    expect(after(p, 30, 40)).toBe(0);
    expect(after(p, 200)).toBe(400);
  });

  it('is off with a slowdown of 0', () => {
    const p = pacer({ slowdown: 0 });
    expect([100, 1_000, 1_000].map((ms) => after(p, ms))).toEqual([0, 0, 0]);
  });
});
