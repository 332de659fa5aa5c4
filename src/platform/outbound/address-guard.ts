import { BlockList, isIP } from 'node:net';
import type { LookupFunction, Resolver } from './dns-lookup';

/** Why an address is not a public unicast target. */
export type BlockedRange =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared'
  | 'multicast'
  | 'reserved'
  | 'documentation';

/** Never a target: own host, private nets, cloud metadata, non-global; IPv4-mapped IPv6 too. */
const RANGES: [BlockedRange, string, number, 'ipv4' | 'ipv6'][] = [
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['shared', '100.64.0.0', 10, 'ipv4'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['reserved', '192.0.0.0', 24, 'ipv4'],
  ['documentation', '192.0.2.0', 24, 'ipv4'],
  ['reserved', '192.88.99.0', 24, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['reserved', '198.18.0.0', 15, 'ipv4'],
  ['documentation', '198.51.100.0', 24, 'ipv4'],
  ['documentation', '203.0.113.0', 24, 'ipv4'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['reserved', '240.0.0.0', 4, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '::1', 128, 'ipv6'],
  // NAT64 and 6to4 embed an IPv4 address that could be anything, Teredo tunnels out: refuse all.
  ['reserved', '64:ff9b::', 96, 'ipv6'],
  ['reserved', '64:ff9b:1::', 48, 'ipv6'],
  ['reserved', '100::', 64, 'ipv6'],
  ['reserved', '2001::', 23, 'ipv6'],
  ['documentation', '2001:db8::', 32, 'ipv6'],
  ['reserved', '2002::', 16, 'ipv6'],
  ['private', 'fc00::', 7, 'ipv6'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['reserved', 'fec0::', 10, 'ipv6'],
  ['multicast', 'ff00::', 8, 'ipv6'],
];

const BLOCK_LISTS = RANGES.map(([label, network, prefix, family]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { label, list };
});

export function blockedRangeOf(address: string): BlockedRange | undefined {
  const bare = address.replace(/%.*$/, ''); // a zone id (fe80::1%eth0) names an interface, not an address
  const version = isIP(bare);
  if (version === 0) throw new Error(`Not an IP address: ${address}`);
  const family = version === 4 ? 'ipv4' : 'ipv6';
  return BLOCK_LISTS.find(({ list }) => list.check(bare, family))?.label;
}

/** Names the target as given, never its resolved address (no internal DNS lookup oracle). */
export class BlockedTargetError extends Error {
  constructor(host: string, literal: boolean) {
    super(
      literal
        ? `Target ${host} is not a public address`
        : `Target ${host} does not resolve to a public address`,
    );
    this.name = 'BlockedTargetError';
  }
}

/** Which addresses are refused: `blockedRangeOf` everywhere but in tests that need a stand-in. */
export type AddressPolicy = (address: string) => BlockedRange | undefined;

function assertPublic(host: string, address: string, policy: AddressPolicy = blockedRangeOf): void {
  if (policy(address)) throw new BlockedTargetError(host, address === host);
}

/** `[::1]` in a URL is `::1` to the resolver. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** At registration every resolved address must be public: a client may connect to any. */
export async function assertPublicHost(host: string, resolve: Resolver): Promise<void> {
  if (isIP(host) !== 0) return assertPublic(host, host);
  const addresses = await resolve(host);
  if (addresses.length === 0) throw new Error(`${host} has no addresses`);
  for (const { address } of addresses) assertPublic(host, address);
}

/** At connect time, as a socket `lookup`, so DNS rebinding is refused (IP literals skip it). */
export function publicOnlyLookup(
  lookup: LookupFunction,
  policy: AddressPolicy = blockedRangeOf,
): LookupFunction {
  return (host, options, callback) => {
    lookup(host, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const addresses = Array.isArray(address) ? address : [{ address, family: family ?? 0 }];
      try {
        for (const entry of addresses) assertPublic(host, entry.address, policy);
      } catch (blocked) {
        return callback(blocked as NodeJS.ErrnoException, address, family);
      }
      callback(null, address, family);
    });
  };
}

/** For IP-literal URLs, which never reach `lookup`. */
export function assertPublicLiteral(host: string, policy: AddressPolicy = blockedRangeOf): void {
  if (isIP(host) !== 0) assertPublic(host, host, policy);
}
