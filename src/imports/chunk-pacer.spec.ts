import { ChunkPacer } from './chunk-pacer';

describe('ChunkPacer', () => {
  it('never waits while chunks cost what the fastest cost', () => {
    const pacer = new ChunkPacer(1.5);
    const pauses = [100, 110, 95, 120, 100, 140].map((ms) => pacer.pauseAfter(ms, 500));
    expect(pauses).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('waits twice as long as a chunk took once two in a row are slower per line by the slowdown', () => {
    const pacer = new ChunkPacer(1.5);
    pacer.pauseAfter(100, 500);
    // one slow chunk alone is let pass, and so is the next that is not slow
    expect(pacer.pauseAfter(250, 500)).toBe(0);
    expect(pacer.pauseAfter(100, 500)).toBe(0);
    expect(pacer.pauseAfter(160, 500)).toBe(0);
    expect(pacer.pauseAfter(160, 500)).toBe(320);
    // per line, not per chunk: a short chunk at the same rate is not slow
    expect(pacer.pauseAfter(20, 100)).toBe(0);
    expect(pacer.pauseAfter(40, 100)).toBe(0);
    expect(pacer.pauseAfter(40, 100)).toBe(80);
  });

  it('follows a cost that grows slowly, as a growing index makes it', () => {
    const pacer = new ChunkPacer(1.5);
    let ms = 100;
    const pauses: number[] = [];
    for (let chunk = 0; chunk < 200; chunk++, ms *= 1.003) pauses.push(pacer.pauseAfter(ms, 500));
    expect(pauses.every((pause) => pause === 0)).toBe(true);
  });

  it('waits through a long slowdown, and takes one lasting past ~57 chunks as the new normal', () => {
    const pacer = new ChunkPacer(1.5);
    pacer.pauseAfter(100, 500);
    // twice the fastest cost: waits while 1.5 × 1.005^n < 2
    const pauses = Array.from({ length: 80 }, () => pacer.pauseAfter(200, 500));
    expect(pauses[0]).toBe(0);
    expect(pauses.slice(1, 55).every((pause) => pause === 400)).toBe(true);
    expect(pauses.slice(60).every((pause) => pause === 0)).toBe(true);
  });

  it('is off with a slowdown of 0, and an empty chunk changes nothing', () => {
    expect(new ChunkPacer(0).pauseAfter(1_000, 1)).toBe(0);
    const pacer = new ChunkPacer(1.5);
    expect(pacer.pauseAfter(5, 0)).toBe(0);
    pacer.pauseAfter(100, 500);
    pacer.pauseAfter(200, 500);
    expect(pacer.pauseAfter(200, 500)).toBe(400);
  });
});
