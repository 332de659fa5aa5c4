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

describe('PollingLoop options and failures', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate'] }));
  afterEach(() => jest.useRealTimers());

  const quietLogger = () => {
    const logger = new Logger('test');
    jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    jest.spyOn(logger, 'log').mockImplementation(() => undefined);
    return logger;
  };

  it('with runAtStart false, first runs one interval after start, as setInterval would', async () => {
    const step = jest.fn(async () => undefined);
    const loop = new PollingLoop(quietLogger(), 1_000, 'failed', step, { runAtStart: false });
    loop.start();
    jest.advanceTimersByTime(999);
    expect(step).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(step).toHaveBeenCalledTimes(1);
    await tick();
    jest.advanceTimersByTime(1_000);
    expect(step).toHaveBeenCalledTimes(2);
    await loop.stop();
  });

  it('the next interval starts when a run ends, so a slow run is never overlapped', async () => {
    let release: (() => void) | undefined;
    const step = jest.fn(() => new Promise<void>((resolve) => (release = resolve)));
    const loop = new PollingLoop(quietLogger(), 1_000, 'failed', step, { runAtStart: false });
    loop.start();
    jest.advanceTimersByTime(1_000);
    jest.advanceTimersByTime(5_000);
    expect(step).toHaveBeenCalledTimes(1);
    release!();
    await tick();
    jest.advanceTimersByTime(999);
    expect(step).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(1);
    expect(step).toHaveBeenCalledTimes(2);
    release!();
    await loop.stop();
  });

  it('unrefs its timer only when asked', async () => {
    const refd = new PollingLoop(quietLogger(), 1_000, 'failed', async () => undefined);
    const unrefd = new PollingLoop(quietLogger(), 1_000, 'failed', async () => undefined, {
      unref: true,
    });
    refd.start();
    unrefd.start();
    const timers = (loop: PollingLoop) => (loop as unknown as { timer: NodeJS.Timeout }).timer;
    expect(timers(refd).hasRef()).toBe(true);
    expect(timers(unrefd).hasRef()).toBe(false);
    await refd.stop();
    await unrefd.stop();
  });

  it('logs a failure once per outage and the recovery once', async () => {
    const logger = quietLogger();
    let fail = true;
    const loop = new PollingLoop(logger, 1_000, 'step failed', async () => {
      if (fail) throw new Error('down');
    });
    loop.start();
    for (let i = 0; i < 3; i++) {
      jest.advanceTimersByTime(i === 0 ? 0 : 1_000);
      await tick();
    }
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn).toHaveBeenCalledWith({ err: new Error('down') }, 'step failed');
    fail = false;
    jest.advanceTimersByTime(1_000);
    await tick();
    jest.advanceTimersByTime(1_000);
    await tick();
    expect(logger.log).toHaveBeenCalledTimes(1);
    expect(logger.log).toHaveBeenCalledWith('Recovered');
    await loop.stop();
  });

  it('a failure function is called on every failure instead, and the loop goes on', async () => {
    const logger = quietLogger();
    const failures: unknown[] = [];
    const loop = new PollingLoop(
      logger,
      1_000,
      (error) => failures.push(error),
      async () => {
        throw new Error('down');
      },
    );
    loop.start();
    for (let i = 0; i < 3; i++) {
      jest.advanceTimersByTime(i === 0 ? 0 : 1_000);
      await tick();
    }
    expect(failures).toHaveLength(3);
    expect(logger.warn).not.toHaveBeenCalled();
    await loop.stop();
  });

  it('stop waits for the run in progress and no run follows it', async () => {
    let release: (() => void) | undefined;
    const step = jest.fn(() => new Promise<void>((resolve) => (release = resolve)));
    const loop = new PollingLoop(quietLogger(), 1_000, 'failed', step);
    loop.start();
    jest.advanceTimersByTime(0);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await tick();
    expect(stopped).toBe(false);
    release!();
    await stopping;
    jest.advanceTimersByTime(10_000);
    expect(step).toHaveBeenCalledTimes(1);
  });
});
