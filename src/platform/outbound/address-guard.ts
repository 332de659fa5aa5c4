import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import type { LookupFunction, Resolver } from './dns-lookup';

/** Why an address is not a target: the ipaddr.js range it is in (`loopback`, `private`, …). */
export type BlockedRange = string;

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

const v4 = (bytes: number[]): IPv4 => new ipaddr.IPv4(bytes);
const cidr = (range: string) => ipaddr.IPv6.parseCIDR(range);

const COMPATIBLE = cidr('::/96');
const NAT64 = cidr('64:ff9b::/96');
const SIX_TO_FOUR = cidr('2002::/16');
const TEREDO = cidr('2001::/32');

/**
 * The IPv4 address an IPv6 one carries, for the forms that reach it: mapped (::ffff:0:0/96),
 * compatible (::/96) and NAT64 (64:ff9b::/96) in the last 32 bits, 6to4 (2002::/16) in bits
 * 16-48, Teredo (2001::/32) as the client's address: the last 32 bits inverted.
 */
function embeddedIPv4(address: IPv6): IPv4 | undefined {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  const bytes = address.toByteArray();
  if (address.match(COMPATIBLE) || address.match(NAT64)) return v4(bytes.slice(12));
  if (address.match(SIX_TO_FOUR)) return v4(bytes.slice(2, 6));
  if (address.match(TEREDO)) return v4(bytes.slice(12).map((byte) => byte ^ 0xff));
  return undefined;
}

/**
 * Outbound requests go only to globally routable unicast addresses (ipaddr.js's `unicast`
 * range); an IPv6 address that embeds an IPv4 one is judged by that IPv4 address. Anything
 * else answers the name of its range: loopback, private, linkLocal (cloud metadata),
 * carrierGradeNat, multicast, reserved (documentation, 240/4, …), uniqueLocal, rfc6145 …
 */
export function blockedRangeOf(address: string): BlockedRange | undefined {
  const bare = address.replace(/%.*$/, ''); // a zone id (fe80::1%eth0) names an interface, not an address
  const version = isIP(bare);
  if (version === 0) throw new Error(`Not an IP address: ${address}`);
  if (version === 4) return verdict(ipaddr.IPv4.parse(bare));
  // Hex form first (::127.0.0.1 is ::7f00:1): ipaddr.js 2 reads a dotted tail after `::` as mapped.
  const ipv6 = ipaddr.IPv6.parse(canonicalIPv6(bare));
  const own = ipv6.range();
  // :: and ::1 lie in ::/96 as well, but they are this host, not an embedded IPv4 address.
  if (own === 'unspecified' || own === 'loopback') return own;
  return verdict(embeddedIPv4(ipv6) ?? ipv6);
}

function verdict(address: IPv4 | IPv6): BlockedRange | undefined {
  const range = address.range();
  return range === 'unicast' ? undefined : range;
}

/** The WHATWG URL serialiser writes IPv6 in compressed hex, an embedded IPv4 tail included. */
function canonicalIPv6(address: string): string {
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
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
