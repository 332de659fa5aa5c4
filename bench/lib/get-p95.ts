import autocannon from 'autocannon';
import { RUN_SECONDS } from './load';

const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];

export interface P95Run {
  p95: number;
  rps: number;
  requests: number;
  non2xx: number;
}

/**
 * GET /v1/listings/:id over random ids for `seconds`, on few connections (latency, not the API's
 * throughput); p95 from every response's own latency.
 */
export async function getByIdP95(
  base: string,
  key: string,
  ids: string[],
  connections: number,
  seconds = RUN_SECONDS,
): Promise<P95Run> {
  const latencies: number[] = [];
  let done!: (result: autocannon.Result) => void;
  let failed!: (error: unknown) => void;
  const finished = new Promise<autocannon.Result>((ok, fail) => ((done = ok), (failed = fail)));
  const options: autocannon.Options = {
    url: base,
    headers: { authorization: `Bearer ${key}` },
    connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (req: autocannon.Request) => ({ ...req, path: `/v1/listings/${pick(ids)}` }),
      },
    ],
  };
  // The callback form: it returns the instance, whose 'response' events carry each latency.
  const instance = autocannon(options, (error, result) => (error ? failed(error) : done(result)));
  instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  const result = await finished;
  latencies.sort((a, b) => a - b);
  const p95 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.95))];
  return {
    p95: Number(p95.toFixed(1)),
    rps: Math.round(result.requests.average),
    requests: latencies.length,
    non2xx: result.non2xx,
  };
}
