import { effectiveAddress, parseAddress, specialRangeOf } from './address-ranges';

/** Where a process of the Baton cluster listens (an engine, a console, the database, a broker): `host` a name or an IP literal. */
export interface ClusterAddress {
  host: string;
  port: number;
}

/**
 * The Baton cluster's own listening addresses, as its configuration names them, and this
 * machine's own host names and addresses (`localHosts`): a process listening on one of those, on
 * a loopback address or on all of them (0.0.0.0, ::) is reached through any of them.
 */
export interface ClusterAddresses {
  addresses: readonly ClusterAddress[];
  localHosts: ReadonlySet<string>;
}

/** The one reason an executor address of the cluster's own is refused: it names no process, so the refusal tells no more than that. */
export const CLUSTER_ADDRESS_REFUSED = 'is a listening address of the Baton cluster itself (an engine, a console, its database or broker), where no executor may be';

/**
 * Whether `host`:`port` — a URL's host (a name or an IP literal), or an address a name resolved
 * to — is one of the cluster's own listening addresses. An address on this machine matches any
 * host of this machine (a loopback address, `localhost`, its names and interface addresses); one
 * elsewhere matches its own host as configured (a name is not resolved here: the connection's
 * check sees what it resolves to).
 */
export function isClusterAddress(host: string, port: number, cluster: ClusterAddresses): boolean {
  const subject = canonicalHost(host);
  for (const address of cluster.addresses) {
    if (address.port !== port) continue;
    const own = canonicalHost(address.host);
    if (isLocal(own, cluster.localHosts) ? isLocal(subject, cluster.localHosts) : own === subject) return true;
  }
  return false;
}

/** Why an executor may not be at `url` (one of the cluster's own addresses), or null. */
export function clusterAddressRefusal(url: string, cluster: ClusterAddresses): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null; // not a URL: the outbound policy says so
  }
  const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
  return isClusterAddress(parsed.hostname, port, cluster) ? `${parsed.host} ${CLUSTER_ADDRESS_REFUSED}` : null;
}

/** The cluster address of a URL (`mysql://user:pass@db:3306/baton`, `http://127.0.0.1:8080`), its port `defaultPort` when it names none; null when it names no host. */
export function clusterAddressOfUrl(url: string, defaultPort: number): ClusterAddress | null {
  try {
    const parsed = new URL(url);
    return parsed.hostname ? { host: parsed.hostname, port: parsed.port ? Number(parsed.port) : defaultPort } : null;
  } catch {
    return null;
  }
}

/** Lower case, without IPv6 brackets or a trailing dot; an IP literal in one spelling (an IPv4-mapped IPv6 address as its IPv4 address). */
function canonicalHost(host: string): string {
  const bare = host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  const address = parseAddress(bare);
  return address ? effectiveAddress(address).toNormalizedString() : bare;
}

/** Whether a canonical host is this machine: loopback, unspecified (all interfaces), `localhost`, or one of its own names and addresses. */
function isLocal(host: string, localHosts: ReadonlySet<string>): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const address = parseAddress(host);
  if (address) {
    const range = specialRangeOf(address)?.name;
    if (range === 'loopback' || range === 'this network' || range === 'unspecified') return true;
  }
  for (const local of localHosts) if (canonicalHost(local) === host) return true;
  return false;
}
