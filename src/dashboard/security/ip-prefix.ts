import ipaddr from 'ipaddr.js';

/**
 * The address sign-in throttling counts by: an IPv4 address as it is, an IPv6 address by its
 * /64 (one customer's network), an IPv4-mapped IPv6 address as its IPv4.
 */
export function ipPrefix(ip: string | undefined): string {
  if (!ip || !ipaddr.isValid(ip)) return 'unknown';
  let address = ipaddr.parse(ip);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress())
    address = (address as ipaddr.IPv6).toIPv4Address();
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}
