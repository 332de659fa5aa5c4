import type { LookupAddress, LookupOptions } from 'node:dns';

export type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** The shape of `dns.lookup` that sockets accept as their `lookup` option. */
export type LookupFunction = (
  host: string,
  options: LookupOptions,
  callback: LookupCallback,
) => void;

export type Resolver = (host: string) => Promise<LookupAddress[]>;

export class DnsTimeoutError extends Error {
  readonly code = 'EDNSTIMEOUT';

  constructor(host: string, timeoutMs: number) {
    super(`DNS lookup of ${host} timed out after ${timeoutMs} ms`);
    this.name = 'DnsTimeoutError';
  }
}

/** The resolver cannot be cancelled: concurrent callers share a lookup, each with its time-out. */
export function boundedLookup(lookup: LookupFunction, timeoutMs: number): LookupFunction {
  const waiting = new Map<string, LookupCallback[]>();
  return (host, options, callback) => {
    let answered = false;
    const answer: LookupCallback = (error, address, family) => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      callback(error, address, family);
    };
    const timer = setTimeout(() => answer(new DnsTimeoutError(host, timeoutMs), []), timeoutMs);
    timer.unref();

    const key = [host, options.family ?? 0, options.hints ?? 0, options.all === true].join('|');
    const callers = waiting.get(key);
    if (callers) {
      callers.push(answer);
      return;
    }
    waiting.set(key, [answer]);
    lookup(host, options, (error, address, family) => {
      const all = waiting.get(key) ?? [];
      waiting.delete(key);
      for (const caller of all) caller(error, address, family);
    });
  };
}

export function resolverOf(lookup: LookupFunction): Resolver {
  return (host) =>
    new Promise((resolve, reject) =>
      lookup(host, { all: true }, (error, addresses) =>
        error ? reject(error) : resolve(addresses as LookupAddress[]),
      ),
    );
}
