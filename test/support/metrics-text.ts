/** One sample's value from Prometheus text exposition, 0 when absent (counters not yet moved). */
export function sampleValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = match[2] ? match[2].split(/,(?=[a-zA-Z_]+=")/) : [];
    if (wanted.every((label) => present.includes(label))) return Number(match[3]);
  }
  return 0;
}

/** GET /metrics on `baseUrl`; fails on anything but 200 with the Prometheus content type. */
export async function scrape(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  if (!res.headers.get('content-type')?.startsWith('text/plain; version=0.0.4'))
    throw new Error(`unexpected content type ${res.headers.get('content-type')}`);
  return res.text();
}
