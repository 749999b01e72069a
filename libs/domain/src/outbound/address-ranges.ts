import ipaddr from 'ipaddr.js';

export type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * A special-purpose range an outbound call may land in. `never`: no tenant list can allow it
 * (cloud metadata services, link-local, addresses that are no single host); otherwise the range
 * is inside some network, refused unless the tenant's list allows it.
 */
export interface SpecialRange {
  name: string;
  cidr: string;
  never: boolean;
}

/**
 * Most specific first: the first range holding an address names it (100.100.100.200 is metadata
 * before it is carrier-grade NAT). Connecting to 0.0.0.0 reaches the host itself on Linux, hence
 * "this network" among the never-ranges.
 */
const RANGES: ReadonlyArray<SpecialRange & { parsed: [Address, number] }> = (
  [
    ['cloud metadata', '100.100.100.200/32', true], // Alibaba Cloud
    ['cloud metadata', '192.0.0.192/32', true], // Oracle Cloud (legacy)
    ['cloud metadata', 'fd00:ec2::254/128', true], // AWS over IPv6
    ['link-local', '169.254.0.0/16', true], // AWS, GCP, Azure, Oracle metadata at 169.254.169.254
    ['link-local', 'fe80::/10', true],
    ['this network', '0.0.0.0/8', true],
    ['unspecified', '::/128', true],
    ['broadcast', '255.255.255.255/32', true],
    ['multicast', '224.0.0.0/4', true],
    ['multicast', 'ff00::/8', true],
    ['reserved', '240.0.0.0/4', true],
    ['loopback', '127.0.0.0/8', false],
    ['loopback', '::1/128', false],
    ['private', '10.0.0.0/8', false],
    ['private', '172.16.0.0/12', false],
    ['private', '192.168.0.0/16', false],
    ['unique local', 'fc00::/7', false],
    ['site-local', 'fec0::/10', false],
    ['carrier-grade NAT', '100.64.0.0/10', false],
    ['IETF protocol assignments', '192.0.0.0/24', false],
    ['benchmarking', '198.18.0.0/15', false],
  ] as const
).map(([name, cidr, never]) => ({ name, cidr, never, parsed: ipaddr.parseCIDR(cidr) }));

/**
 * An IP address in its usual spelling (four-part decimal IPv4, or IPv6), else null. Stricter
 * than ipaddr.isValid, which takes `10` for 0.0.0.10; URL hosts come this way already (the URL
 * parser rewrites `http://2852039166/` to 169.254.169.254).
 */
export function parseAddress(text: string): Address | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  return null;
}

/**
 * The address a connection to `address` reaches: the IPv4 address an IPv6 one carries
 * (IPv4-mapped, NAT64 64:ff9b::/96, 6to4 2002::/16), else the address itself.
 */
export function effectiveAddress(address: Address): Address {
  if (address.kind() !== 'ipv6') return address;
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  const bytes = v6.toByteArray();
  if (v6.range() === 'rfc6052') return new ipaddr.IPv4(bytes.slice(12, 16));
  if (v6.range() === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6));
  return address;
}

/** The special range `address` is in (judged by the address itself first, then by the IPv4 address it carries), or null for an ordinary public address. */
export function specialRangeOf(address: Address): SpecialRange | null {
  const effective = effectiveAddress(address);
  for (const candidate of effective === address ? [address] : [address, effective]) {
    const range = RANGES.find((r) => inRange(candidate, r.parsed));
    if (range) return { name: range.name, cidr: range.cidr, never: range.never };
  }
  return null;
}

/** Whether `address` (IPv4-mapped IPv6 judged as its IPv4 address) is in `range`. */
export function inRange(address: Address, range: [Address, number]): boolean {
  const plain = address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
  return plain.kind() === range[0].kind() && plain.match(range);
}

/**
 * Whether every address of `range` is in a never-range: pointless in an allow-list, so an
 * operator who writes one is told. A wider range that merely contains never-addresses, such as
 * 0.0.0.0/0, is fine: they stay refused.
 */
export function isWhollyNever([base, bits]: [Address, number]): boolean {
  if (bits === (base.kind() === 'ipv4' ? 32 : 128)) return specialRangeOf(base)?.never === true;
  return RANGES.some((r) => r.never && base.kind() === r.parsed[0].kind() && bits >= r.parsed[1] && base.match(r.parsed));
}
