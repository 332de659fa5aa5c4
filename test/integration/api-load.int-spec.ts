import { ConfigService } from '@nestjs/config';
import Redis from 'ioredis';
import { ApiLoad, SLOT_MS } from '../../src/platform/api-load/api-load';
import { REDIS } from '../../src/platform/redis/redis.module';
import { createIntegrationContext, IntegrationContext } from '../support/integration';
import { eventually } from '../support/webhook-receiver';

/** The API's request rate as the workers read it: the sum of every API instance's last second. */
describe('ApiLoad', () => {
  let ctx: IntegrationContext;
  let reader: ApiLoad;
  const instances: ApiLoad[] = [];

  beforeAll(async () => {
    ctx = await createIntegrationContext({});
    reader = ctx.get(ApiLoad);
  });
  afterAll(async () => {
    for (const instance of instances) await instance.onModuleDestroy();
    await ctx?.close();
  });

  /** Another API process on the same Redis and key prefix. */
  function apiInstance(): ApiLoad {
    const instance = new ApiLoad(ctx.get<Redis>(REDIS as never), ctx.get(ConfigService));
    instances.push(instance);
    return instance;
  }

  it('sums the requests of every instance over the last second, then forgets them', async () => {
    const [a, b] = [apiInstance(), apiInstance()];
    expect(await reader.requestsPerSecond()).toBe(0);
    for (let i = 0; i < 30; i++) a.count();
    for (let i = 0; i < 20; i++) b.count();
    // Reported once their slot has ended; read at most once a slot.
    await eventually(async () => (await reader.requestsPerSecond()) === 50);
    const seen = Date.now();
    await eventually(async () => (await reader.requestsPerSecond()) === 0, 3_000);
    // Gone once the slot left the last second's window, not sooner.
    expect(Date.now() - seen).toBeGreaterThanOrEqual(1_000 - 2 * SLOT_MS);
  });

  it('rejects when Redis cannot be read', async () => {
    const offline = new Redis({ lazyConnect: true, enableOfflineQueue: false });
    const load = new ApiLoad(offline, ctx.get(ConfigService));
    await expect(load.requestsPerSecond()).rejects.toThrow();
    offline.disconnect();
  });
});
