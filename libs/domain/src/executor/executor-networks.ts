import ipaddr from 'ipaddr.js';
import type { FieldError } from '../validation/field-error';

/**
 * Where a tenant's executors may live: the operator's allow-list of networks and host names,
 * checked against the URL an executor registers with (heartbeat) and again before every dispatch
 * (the list may have changed since). An engine POSTs signed requests to that URL, so without a
 * limit a tenant could point an engine at anything it can reach.
 *
 * Entries (case-insensitive, at most MAX_EXECUTOR_NETWORKS):
 * - `10.0.0.0/8`, `fd00::/8` — a CIDR range; matches URLs whose host is an IP literal in it;
 * - `10.1.2.3`, `::1` — one address (a /32 or /128);
 * - `exec.internal` — exactly that host name;
 * - `*.svc.cluster.local` — any host name below that domain (not the domain itself).
 *
 * Names are matched as names: no DNS lookup happens here (a check that resolves would answer
 * differently from one engine to the next and race the resolver's cache). A host name URL is
 * allowed by a name entry, an IP literal URL by a range entry. What a name resolves to is
 * checked where the connection is made (isAlwaysRefusedAddress), for the addresses below.
 *
 * Always refused, whatever the list says — no tenant has a reason to run an executor there, and
 * they are where cloud credentials live: link-local (169.254.0.0/16, fe80::/10, which hold the
 * AWS, GCP, Azure and Oracle metadata services), unspecified, broadcast and multicast addresses,
 * the metadata addresses outside link-local (Alibaba's 100.100.100.200, AWS's IPv6 fd00:ec2::254),
 * those addresses wrapped in IPv6 (IPv4-mapped, NAT64, 6to4), and the metadata host names.
 * `null` (the default) or an empty list allows every other URL.
 */
export type ExecutorNetworks = readonly string[] | null;

/** Most entries a tenant's list may hold. */
export const MAX_EXECUTOR_NETWORKS = 100;

/** Longest entry: a DNS name's limit (253) plus `*.`. */
const MAX_ENTRY_LENGTH = 255;

const REFUSED_RANGES = new Set(['linkLocal', 'unspecified', 'broadcast', 'multicast']);
const METADATA_ADDRESSES = ['100.100.100.200', 'fd00:ec2::254'].map((a) => ipaddr.parse(a).toNormalizedString());
const REFUSED_BLOCKS = ['169.254.0.0/16', '224.0.0.0/4', 'fe80::/10', 'ff00::/8'].map((c) => ipaddr.parseCIDR(c));
const METADATA_HOSTS = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);
const HOST_LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Rule = { kind: 'range'; range: [Address, number] } | { kind: 'host'; host: string } | { kind: 'below'; domain: string };

export type UrlVerdict = { ok: true } | { ok: false; reason: string };

/** Checks the list an operator sets; the errors name `field[i]` and say why. */
export function validateExecutorNetworks(value: unknown, field = 'executorNetworks'): FieldError[] {
  if (value === null) return [];
  if (!Array.isArray(value)) return [{ field, reason: 'must be an array of networks and host names, or null' }];
  if (value.length > MAX_EXECUTOR_NETWORKS) return [{ field, reason: `must have at most ${MAX_EXECUTOR_NETWORKS} entries` }];
  const errors: FieldError[] = [];
  value.forEach((entry, i) => {
    const parsed = parseEntry(entry);
    if (typeof parsed === 'string') errors.push({ field: `${field}[${i}]`, reason: parsed });
  });
  return errors;
}

/** The list as stored: trimmed, lower-cased, without repeats; null, or empty (which allows the same), is null. Call after validateExecutorNetworks. */
export function normalizeExecutorNetworks(value: readonly string[] | null): string[] | null {
  if (value === null || value.length === 0) return null;
  return [...new Set(value.map((e) => e.trim().toLowerCase()))];
}

/** Whether an executor may be registered at, and sent work to, `url` under `networks`. */
export function checkExecutorUrl(url: string, networks: ExecutorNetworks): UrlVerdict {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  host = host.replace(/\.$/, '');
  const address = parseAddress(host);
  if (address ? isRefused(address) : METADATA_HOSTS.has(host)) {
    return { ok: false, reason: `${host} is a link-local, metadata or non-unicast address, which executors may never use` };
  }
  if (networks === null || networks.length === 0) return { ok: true };
  const rules = networks.map(parseEntry).filter((r): r is Rule => typeof r !== 'string');
  const allowed = address ? rules.some((r) => r.kind === 'range' && inRange(address, r.range)) : rules.some((r) => matchesName(host, r));
  return allowed ? { ok: true } : { ok: false, reason: `${host} is not in the tenant's allowed executor networks (${networks.join(', ')})` };
}

/**
 * True for an address no executor may have (see the module comment). For the address a host
 * name resolved to, where the connection is made.
 */
export function isAlwaysRefusedAddress(address: string): boolean {
  const parsed = parseAddress(address);
  return parsed !== null && isRefused(parsed);
}

/**
 * An IP address in its usual spelling (four-part decimal IPv4, or IPv6), else null. Stricter
 * than ipaddr.isValid, which takes `10` for 0.0.0.10; URL hosts come this way already (the URL
 * parser rewrites `http://2852039166/` to 169.254.169.254).
 */
function parseAddress(text: string): Address | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  return null;
}

function isRefused(address: Address): boolean {
  for (const candidate of [address, ...embeddedIPv4(address)]) {
    if (REFUSED_RANGES.has(candidate.range())) return true;
    if (METADATA_ADDRESSES.includes(candidate.toNormalizedString())) return true;
  }
  return false;
}

/**
 * A range every address of which is refused (inside link-local or multicast, or one refused
 * address): pointless in an allow-list, so an operator who writes one is told. A wider range
 * that merely contains refused addresses, such as 0.0.0.0/0, is fine: they stay refused.
 */
function isWhollyRefused([base, bits]: [Address, number]): boolean {
  if (bits === (base.kind() === 'ipv4' ? 32 : 128)) return isRefused(base);
  return REFUSED_BLOCKS.some((block) => base.kind() === block[0].kind() && bits >= block[1] && base.match(block));
}

/** The IPv4 address an IPv6 one carries (IPv4-mapped, NAT64 64:ff9b::/96, 6to4 2002::/16), if any. */
function embeddedIPv4(address: Address): ipaddr.IPv4[] {
  if (address.kind() !== 'ipv6') return [];
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return [v6.toIPv4Address()];
  const bytes = v6.toByteArray();
  if (v6.range() === 'rfc6052') return [new ipaddr.IPv4(bytes.slice(12, 16))];
  if (v6.range() === '6to4') return [new ipaddr.IPv4(bytes.slice(2, 6))];
  return [];
}

function inRange(address: Address, range: [Address, number]): boolean {
  const plain = address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
  return plain.kind() === range[0].kind() && plain.match(range);
}

function matchesName(host: string, rule: Rule): boolean {
  if (rule.kind === 'host') return host === rule.host;
  if (rule.kind === 'below') return host.endsWith(`.${rule.domain}`);
  return false;
}

/** A rule, or why the entry is not one. */
function parseEntry(entry: unknown): Rule | string {
  if (typeof entry !== 'string') return 'must be a string';
  const text = entry.trim().toLowerCase();
  if (text.length === 0 || text.length > MAX_ENTRY_LENGTH) return `must be 1 to ${MAX_ENTRY_LENGTH} characters`;
  if (text.includes('/')) {
    const [base, bits] = text.split('/', 2);
    if (parseAddress(base) === null || !/^\d{1,3}$/.test(bits) || !ipaddr.isValidCIDR(text)) return 'not a CIDR range (like 10.0.0.0/8 or fd00::/8)';
    const range = ipaddr.parseCIDR(text);
    if (isWhollyRefused(range)) return 'link-local, metadata and non-unicast addresses are always refused';
    return { kind: 'range', range };
  }
  const address = parseAddress(text);
  if (address) {
    if (isRefused(address)) return 'link-local, metadata and non-unicast addresses are always refused';
    return { kind: 'range', range: [address, address.kind() === 'ipv4' ? 32 : 128] };
  }
  const below = text.startsWith('*.');
  const name = below ? text.slice(2) : text;
  if (!name.split('.').every((label) => HOST_LABEL.test(label))) return 'not a CIDR range, an IP address, a host name or *.domain';
  if (METADATA_HOSTS.has(name)) return 'metadata host names are always refused';
  return below ? { kind: 'below', domain: name } : { kind: 'host', host: name };
}
