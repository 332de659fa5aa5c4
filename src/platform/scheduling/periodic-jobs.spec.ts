import { Injectable, Logger } from '@nestjs/common';
import { ConfigModule, registerAs } from '@nestjs/config';
import { ScheduleModule, SchedulerRegistry } from '@nestjs/schedule';
import { Test, TestingModule } from '@nestjs/testing';
import { Every } from './every.decorator';
import { SchedulingModule } from './scheduling.module';

@Injectable()
class Jobs {
  slowRuns = 0;
  configRuns = 0;
  failures = 0;
  sawStopping: boolean[] = [];
  private release: (() => void) | undefined;

  @Every('slow', 100)
  async slow(stopping: () => boolean): Promise<void> {
    this.slowRuns++;
    await new Promise<void>((resolve) => (this.release = resolve));
    this.sawStopping.push(stopping());
  }

  @Every('from-config', (config) => config.get('listings.expirySweepEveryMs', { infer: true }))
  async fromConfig(): Promise<void> {
    this.configRuns++;
  }

  /** Throws before returning a promise: the worst a job can do to the interval's callback. */
  @Every('failing', 100)
  failing(): Promise<void> {
    this.failures++;
    throw new Error('database down');
  }

  finishSlowRun(): void {
    this.release?.();
    this.release = undefined;
  }
}

describe('PeriodicJobs', () => {
  let module: TestingModule;
  let jobs: Jobs;
  let errors: jest.SpyInstance;

  beforeEach(async () => {
    jest.useFakeTimers();
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    module = await Test.createTestingModule({
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          load: [registerAs('listings', () => ({ expirySweepEveryMs: 250 }))],
        }),
        ScheduleModule.forRoot(),
        SchedulingModule,
      ],
      providers: [Jobs],
    }).compile();
    await module.init();
    jobs = module.get(Jobs);
  });

  afterEach(async () => {
    jobs.finishSlowRun();
    await module.close();
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('registers each job under its name in the scheduler registry', () => {
    expect(module.get(SchedulerRegistry).getIntervals().sort()).toEqual([
      'failing',
      'from-config',
      'slow',
    ]);
  });

  it('takes a job interval from the configuration, first run one interval after start', async () => {
    await jest.advanceTimersByTimeAsync(249);
    expect(jobs.configRuns).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(jobs.configRuns).toBe(1);
    await jest.advanceTimersByTimeAsync(500);
    expect(jobs.configRuns).toBe(3);
  });

  it('never starts a run while the last one is still going', async () => {
    await jest.advanceTimersByTimeAsync(1_000);
    expect(jobs.slowRuns).toBe(1);
    jobs.finishSlowRun();
    await jest.advanceTimersByTimeAsync(100);
    expect(jobs.slowRuns).toBe(2);
  });

  it('logs an outage once and keeps trying', async () => {
    await jest.advanceTimersByTimeAsync(300);
    expect(jobs.failures).toBe(3);
    expect(errors).toHaveBeenCalledTimes(1);
    expect(errors.mock.calls[0][1]).toBe('failing failed; retried every interval');
  });

  it('on shutdown starts no run and waits for the one in progress, which sees stopping', async () => {
    await jest.advanceTimersByTimeAsync(250);
    expect([jobs.slowRuns, jobs.configRuns]).toEqual([1, 1]);
    let closed = false;
    const closing = module.close().then(() => (closed = true));
    await jest.advanceTimersByTimeAsync(1_000);
    expect(closed).toBe(false);
    expect(jobs.configRuns).toBe(1);
    jobs.finishSlowRun();
    await closing;
    expect(jobs.sawStopping).toEqual([true]);
    expect(module.get(SchedulerRegistry).getIntervals()).toEqual([]);
  });
});
