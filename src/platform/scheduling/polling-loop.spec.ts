import { Logger } from '@nestjs/common';
import { PollingLoop } from './polling-loop';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('PollingLoop.wake', () => {
  let runs = 0;
  let release: (() => void) | undefined;
  let loop: PollingLoop;

  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    runs = 0;
    release = undefined;
    loop = new PollingLoop(new Logger('test'), 10_000, 'failed', async () => {
      runs++;
      await new Promise<void>((resolve) => (release = resolve));
    });
  });
  afterEach(async () => {
    release?.();
    const stopped = loop.stop();
    release?.();
    await stopped;
    jest.useRealTimers();
  });

  const finishRun = async () => {
    release!();
    release = undefined;
    await tick();
  };

  it('runs the step at once instead of at the end of the interval', async () => {
    loop.start();
    jest.advanceTimersByTime(0);
    expect(runs).toBe(1);
    await finishRun();
    jest.advanceTimersByTime(1_000);
    expect(runs).toBe(1); // the next poll is 10 s away
    loop.wake();
    jest.advanceTimersByTime(0);
    expect(runs).toBe(2);
  });

  it('a wake during a run makes one more run right after it, however many came', async () => {
    loop.start();
    jest.advanceTimersByTime(0);
    loop.wake();
    loop.wake();
    expect(runs).toBe(1); // never two runs at once
    await finishRun();
    jest.advanceTimersByTime(0);
    expect(runs).toBe(2);
    await finishRun();
    jest.advanceTimersByTime(9_999);
    expect(runs).toBe(2); // then back to the interval
    jest.advanceTimersByTime(1);
    expect(runs).toBe(3);
  });

  it('does nothing once stopped', async () => {
    loop.start();
    jest.advanceTimersByTime(0);
    await finishRun();
    await loop.stop();
    loop.wake();
    jest.advanceTimersByTime(20_000);
    expect(runs).toBe(1);
  });
});
