import { Metrics } from './metrics';

describe('Metrics.scrapedGauge', () => {
  it('answers the scrape when a read never does, with the value it read last', async () => {
    const metrics = new Metrics();
    let answer = true;
    metrics.scrapedGauge('queue_depth_probe', 'a read that stops answering', [], async function () {
      if (!answer) return new Promise<void>(() => undefined); // Redis away: never settles
      this.set(7);
    });
    expect(await metrics.registry.metrics()).toContain('queue_depth_probe 7');
    answer = false;
    expect(await metrics.registry.metrics()).toContain('queue_depth_probe 7');
  });
});
