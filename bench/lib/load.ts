import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  requests: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  /** a fresh path (and body) per request, so caches and indexes see realistic variety */
  request?: () => { path: string; body?: string };
  body?: string;
  connections?: number;
  durationSeconds?: number;
}

/** How long a run lasts unless its options say otherwise (BENCH_DURATION, in seconds). */
export const RUN_SECONDS = Number(process.env.BENCH_DURATION ?? 8);

/** One autocannon run; latencies in milliseconds. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: options.body,
    connections: options.connections ?? 16,
    duration: options.durationSeconds ?? RUN_SECONDS,
    requests: options.request
      ? [{ setupRequest: (req: autocannon.Request) => ({ ...req, ...options.request!() }) }]
      : undefined,
  });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    requests: result.requests.total,
  };
}
