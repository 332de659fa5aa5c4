import type { LookupAddress } from 'node:dns';
import { boundedLookup, DnsTimeoutError, LookupCallback, LookupFunction } from './dns-lookup';

/** A system resolver stand-in that answers only when told to, and counts what it was asked. */
function heldResolver() {
  const pending: LookupCallback[] = [];
  const lookup: LookupFunction = (_host, _options, callback) => void pending.push(callback);
  return { lookup, pending };
}

const ask = (lookup: LookupFunction, host: string) =>
  new Promise<string | LookupAddress[]>((resolve, reject) =>
    lookup(host, { all: true }, (error, address) => (error ? reject(error) : resolve(address))),
  );

describe('bounded DNS lookup', () => {
  it('fails with a DNS time-out when the resolver never answers', async () => {
    const { lookup } = heldResolver();
    const error = await ask(boundedLookup(lookup, 50), 'slow.example').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DnsTimeoutError);
    expect(error).toMatchObject({
      code: 'EDNSTIMEOUT',
      message: 'DNS lookup of slow.example timed out after 50 ms',
    });
  });

  it('passes an answer through, and ignores one that comes after the time-out', async () => {
    const { lookup, pending } = heldResolver();
    const bounded = boundedLookup(lookup, 50);
    const late = ask(bounded, 'late.example');
    await expect(late).rejects.toBeInstanceOf(DnsTimeoutError);
    const answer = [{ address: '93.184.216.34', family: 4 }];
    pending.shift()!(null, answer);

    const prompt = ask(bounded, 'prompt.example');
    pending.shift()!(null, answer);
    await expect(prompt).resolves.toEqual(answer);
  });

  it('shares one lookup among concurrent callers for the same name, so a slow name holds one resolver thread', async () => {
    const { lookup, pending } = heldResolver();
    const bounded = boundedLookup(lookup, 60_000);
    const answers = Array.from({ length: 5 }, () => ask(bounded, 'shared.example'));
    const other = ask(bounded, 'other.example');
    expect(pending).toHaveLength(2);

    const answer = [{ address: '93.184.216.34', family: 4 }];
    pending[0](null, answer);
    await expect(Promise.all(answers)).resolves.toEqual(Array(5).fill(answer));
    pending[1](null, answer);
    await other;
    // Once answered, the next caller asks afresh.
    void ask(bounded, 'shared.example');
    expect(pending).toHaveLength(3);
    pending[2](null, answer);
  });
});
