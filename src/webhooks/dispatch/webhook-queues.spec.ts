import { DEFAULT_RETRY_DELAYS_MS } from '../../platform/config/webhooks.config';
import { DeliveryAttemptError, fanoutBackoff, webhookBackoff } from './webhook-queues';

describe('webhook retry schedule', () => {
  const backoff = webhookBackoff(DEFAULT_RETRY_DELAYS_MS);
  const minutes = (ms: number) => ms / 60_000;

  it('waits 5 min, 30 min, 2 h, 5 h, then 10 h five times: ten attempts over about 2.5 days', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((made) => minutes(backoff(made)));
    expect(delays).toEqual([5, 30, 120, 300, 600, 600, 600, 600, 600]);
    const days = delays.reduce((a, b) => a + b) / 60 / 24;
    expect(days).toBeGreaterThan(2.3);
    expect(days).toBeLessThan(2.5);
  });

  it('uses the delay the processor recorded when the error carries one', () => {
    expect(backoff(1, new DeliveryAttemptError('HTTP 500', 1234))).toBe(1234);
    expect(backoff(2, new Error('database went away'))).toBe(30 * 60_000);
  });

  it('never runs past the end of a shortened schedule', () => {
    expect(webhookBackoff([100, 200])(5)).toBe(200);
  });

  it('retries a fan-out quickly at first and at most once a minute', () => {
    expect([1, 2, 3].map(fanoutBackoff)).toEqual([250, 500, 1000]);
    expect(fanoutBackoff(30)).toBe(60_000);
  });
});
